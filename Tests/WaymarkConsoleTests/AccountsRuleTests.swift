import Testing
import WaymarkConsole
import WaymarkStore

/// An app keeps at least one owner, whatever the change.
@Suite struct AccountsRuleTests {
    @Test(arguments: [Role.owner, .editor, .viewer, nil] as [Role?], [Role.owner, .editor, .viewer, nil] as [Role?])
    func onlyTheLastOwnerCannotLeaveOwnership(_ before: Role?, _ after: Role?) {
        for owners in 0...3 {
            let change = MembershipChange(before: before, after: after, owners: owners)
            let refused = before == .owner && after != .owner && owners <= 1
            #expect((try? Accounts.keepsAnOwner(change)) == nil ? refused : !refused, "\(change)")
        }
    }
}
