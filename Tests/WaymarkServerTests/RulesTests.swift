import Foundation
import Testing
import WaymarkServer
import WaymarkStore

/// The rules the stores apply inside their transactions, decided here once; the store contract
/// tests run them on both databases, under concurrency.
@Suite struct RulesTests {
    @Test(
        arguments: [
            (offered: 10, balance: 0, cap: nil, granted: 10), (offered: 10, balance: 500, cap: nil, granted: 10),
            (offered: 10, balance: 0, cap: 25, granted: 10), (offered: 10, balance: 20, cap: 25, granted: 5),
            (offered: 10, balance: 25, cap: 25, granted: 0), (offered: 10, balance: 40, cap: 25, granted: 0),
            (offered: 0, balance: 0, cap: 25, granted: 0),
        ] as [(offered: Int, balance: Int, cap: Int?, granted: Int)])
    func creditsStopAtTheCap(_ row: (offered: Int, balance: Int, cap: Int?, granted: Int)) {
        #expect(CreditCap.credits(offered: row.offered, balance: row.balance, cap: row.cap) == row.granted)
    }

    @Test func aDraftIsReplacedOnlyFromTheRevisionItWasMadeFrom() {
        #expect(CatalogDraft.unchanged(since: 0)(0))
        #expect(!CatalogDraft.unchanged(since: 0)(1), "someone saved the first draft meanwhile")
        #expect(CatalogDraft.unchanged(since: 3)(3))
        #expect(!CatalogDraft.unchanged(since: 3)(4))
        #expect(CatalogDraft.unchanged(since: nil)(0) && CatalogDraft.unchanged(since: nil)(9), "nil replaces whatever is there")
    }

    @Test func aPublicationIsAuditedAsItsVersionByItsActor() {
        let time = Date(timeIntervalSince1970: 1_790_000_000)
        let version = CatalogVersion(app: "a", number: 7, document: "tips: []", publishedAt: time, note: "rollback to 3")
        #expect(
            AuditEntry.publication(by: .key("key_1"))(version) == [
                AuditEntry(
                    app: "a", actor: .key("key_1"), at: time, action: .publish, object: "version 7", before: nil, after: "rollback to 3")
            ])
    }
}
