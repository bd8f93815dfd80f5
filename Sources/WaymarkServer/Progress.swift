import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkEngine
import WaymarkStore
import WaymarkSupport

extension WaymarkServer {
    /// `POST /v1/progress`: merges what one of the user's devices has of their progress into what
    /// the server keeps for them, and answers the merge, which the device merges into its own
    /// state. Merging is a join (``UserProgress/merged(with:)``), so devices may send in any order,
    /// late or twice. The proof comes first, as for identify: a caller who cannot prove the user
    /// learns nothing of theirs.
    func progress(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let body = try await request.decodeBody(as: ProgressBody.self, context: context)
        let app = try await provenApp(context, user: body.user, userHash: body.userHash)
        let sent = try body.progress.get()
        guard sent.count <= ProgressLimits.perRequest else {
            throw APIError.badRequest("at most \(ProgressLimits.perRequest) tips and tours at once, not \(sent.count)")
        }
        if let id = (Array(sent.tips.keys) + Array(sent.tours.keys)).first(where: { $0.isEmpty || $0.utf8.count > ProgressLimits.idBytes })
        {
            throw APIError.badRequest("an id is text of 1 to \(ProgressLimits.idBytes) bytes, not \"\(id.prefix(80))…\"")
        }
        let merged = Locked<UserProgress?>(nil)
        let logger = self.logger
        let user = body.user
        _ = try await store.updateProgress(app: app.id, user: user, at: now()) { current in
            var kept = UserProgress()
            if let current {
                do {
                    kept = try JSONDecoder().decode(UserProgress.self, from: Data(current.utf8))
                } catch {
                    // Only this server writes it; a document that no longer reads is kept, not lost.
                    logger.error("stored progress does not read", metadata: ["app": "\(app.id)", "error": "\(error)"])
                    return nil
                }
            }
            let result = kept.merged(with: sent)
            guard result.count <= ProgressLimits.perUser else { return nil }
            merged.withLock { $0 = result }
            return result == kept && current != nil ? nil : String(decoding: jsonData(result), as: UTF8.self)
        }
        guard let progress = merged.withLock({ $0 }) else {
            throw APIError(
                .unprocessableContent, .tooMuchProgress,
                "the server keeps the progress of at most \(ProgressLimits.perUser) tips and tours per user")
        }
        metrics.progressMerges.increment()
        return jsonResponse(SyncedProgress(user: user, progress: progress))
    }
}

/// `POST /v1/progress`: a ``ProgressRequest`` and nothing else. Progress that does not read is kept
/// as the reason, to be reported once the proof has been checked.
struct ProgressBody: Decodable {
    var user: String
    var userHash: String
    var progress: Result<UserProgress, APIError>

    private enum CodingKeys: String, CodingKey { case user, userHash, progress }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["user", "userHash", "progress"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(String.self, forKey: .user)
        userHash = try container.decode(String.self, forKey: .userHash)
        do {
            progress = .success(try container.decode(UserProgress.self, forKey: .progress))
        } catch let error as DecodingError {
            progress = .failure(APIError.badRequest(Request.sentence(error)))
        }
    }
}
