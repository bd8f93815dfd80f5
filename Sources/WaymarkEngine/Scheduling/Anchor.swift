/// Where a tip points, as a catalog names it: one element, or one item among many alike (the cards
/// of a product list, the rows of an order history).
///
/// - `NAME`: the element marked `NAME` (the web SDK: `data-waymark-anchor="NAME"`, else the
///   element whose id is `NAME`).
/// - `NAME[KEY]`: the one of them whose key is `KEY` (`data-waymark-key`): it follows its item when
///   a list re-renders or recycles its rows, and is gone while the item is not drawn.
/// - `NAME:visible`: the first of them the user can see; it stays on that one while it is in view.
/// - `NAME:N`: the N-th of them (from 1, at most 9999), in the page's order.
///
/// A name holds no space, `[`, `]` or `:`; a key holds no `]`. The web SDK reads anchors the same
/// way (`parseAnchor` in placement.js); `conformance/anchors/cases.json` holds the cases both pass.
public struct Anchor: Hashable, Sendable, CustomStringConvertible {
    /// Which of the elements marked with the name.
    public enum Pick: Hashable, Sendable {
        /// The first in the page's order.
        case first
        /// The one whose key is this.
        case key(String)
        /// The first the user can see.
        case firstVisible
        /// The n-th, from 1.
        case index(Int)
    }

    /// The name the elements are marked with.
    public var name: String
    /// Which of them.
    public var pick: Pick

    /// The element `pick` chooses among those marked `name`.
    public init(name: String, pick: Pick = .first) {
        self.name = name
        self.pick = pick
    }

    /// The anchor a catalog's text names, or nil when the text is not one (see the type's
    /// description); ``expectedForm`` says what an anchor looks like.
    public init?(_ text: String) {
        let isNameCharacter: (Character) -> Bool = { !$0.isWhitespace && $0 != "[" && $0 != "]" && $0 != ":" }
        guard let end = text.firstIndex(where: { !isNameCharacter($0) }) else {
            guard !text.isEmpty else { return nil }
            self.init(name: text)
            return
        }
        let name = String(text[..<end])
        guard !name.isEmpty else { return nil }
        let rest = text[end...]
        if rest.first == "[" {
            let key = rest.dropFirst().dropLast()
            guard rest.count >= 3, rest.last == "]", !key.contains("]") else { return nil }
            self.init(name: name, pick: .key(String(key)))
        } else if rest.first == ":" {
            let pick = rest.dropFirst()
            if pick == "visible" {
                self.init(name: name, pick: .firstVisible)
            } else if (1...4).contains(pick.count), pick.first != "0", pick.allSatisfy({ $0.isASCII && $0.isNumber }),
                let index = Int(pick)
            {
                self.init(name: name, pick: .index(index))
            } else {
                return nil
            }
        } else {
            return nil
        }
    }

    /// What an anchor looks like, for error messages.
    public static let expectedForm = "NAME, NAME[KEY], NAME:visible or NAME:N (N from 1 to 9999)"

    /// The anchor as a catalog writes it.
    public var description: String {
        switch pick {
        case .first: name
        case .key(let key): "\(name)[\(key)]"
        case .firstVisible: "\(name):visible"
        case .index(let index): "\(name):\(index)"
        }
    }
}

extension RenderCommand {
    /// ``anchor`` read as an ``Anchor``: which element the app draws the tip beside.
    public var target: Anchor? { anchor.flatMap(Anchor.init) }
}
