import WaymarkSupport

extension StoreError {
    /// The error both stores give for events whose ids are not lowercase UUIDs (nothing is stored).
    public static func invalidEventIDs(_ events: [StoredEvent]) -> StoreError? {
        guard let bad = events.first(where: { !EventID.isValid($0.id, lowercase: true) }) else { return nil }
        return StoreError(.failed, "event ids are lowercase UUIDs, not \"\(bad.id)\"")
    }
}
