import HTTPTypes
import Testing

@testable import WaymarkServer

@Suite struct HeaderTextTests {
    @Test func blanksAreSpacesAndTabsAroundTheText() {
        #expect(" \t abc def\t ".withoutBlanks == "abc def")
        #expect("abc".withoutBlanks == "abc")
        #expect(" \t ".withoutBlanks == "")
        #expect("\nabc\n".withoutBlanks == "\nabc\n", "line breaks are not header blanks")
    }

    @Test func tokensCompareIgnoringASCIICase() {
        #expect("GZip".equalsIgnoringCase("gzip"))
        #expect(!"gzip2".equalsIgnoringCase("gzip"))
        #expect("Origin, ACCEPT-Encoding".containsIgnoringCase("accept-encoding"))
        #expect(!"Accept".containsIgnoringCase("accept-encoding"))
        #expect("Ä".equalsIgnoringCase("Ä") && !"Ä".equalsIgnoringCase("ä"), "only ASCII folds")
    }

    @Test func varyNamesAcceptEncodingOnce() {
        var headers: HTTPFields = [.vary: "Authorization, accept-encoding"]
        ContentCoding.addVary(&headers)
        #expect(headers[.vary] == "Authorization, accept-encoding")
        headers[.vary] = "Authorization"
        ContentCoding.addVary(&headers)
        #expect(headers[.vary] == "Authorization, Accept-Encoding")
    }

    @Test func theBearerKeyIsReadWithoutItsBlanks() {
        #expect(KeyAuthenticator.presentedKey([.authorization: "Bearer  wm_pk_abc\t"]) == "wm_pk_abc")
        #expect(KeyAuthenticator.presentedKey([.authorization: "Bearer   "]) == nil)
        #expect(KeyAuthenticator.presentedKey([.authorization: "Basic abc"]) == nil)
        #expect(KeyAuthenticator.presentedKey([.authorization: "Bearer " + String(repeating: "k", count: 201)]) == nil)
    }
}
