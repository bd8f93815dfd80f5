import CoreMetrics
import Foundation
import Hummingbird
import Logging
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
        _ = try context.appKey()  // a preview keeps no user data: refused before its body is read
        let body = try await request.decodeBody(as: ProgressBody.self, context: context)
        let app = try await provenApp(context, user: body.user, userHash: body.userHash)
        let sent = try body.progress.get()
        guard sent.count <= ProgressLimits.perRequest else {
            throw APIError.badRequest("at most \(ProgressLimits.perRequest) tips, tours and checklists at once, not \(sent.count)")
        }
        if let id = sent.ids.first(where: { $0.isEmpty || $0.utf8.count > ProgressLimits.idBytes }) {
            throw APIError.badRequest("an id is text of 1 to \(ProgressLimits.idBytes) bytes, not \"\(id.prefix(80))…\"")
        }
        let outcome = Locked<ProgressMerge?>(nil)
        _ = try await store.updateProgress(app: app.id, user: body.user, at: now()) { current in
            var kept = UserProgress()
            if let current {
                do {
                    kept = try JSONDecoder().decode(UserProgress.self, from: Data(current.utf8))
                } catch {
                    // Only this server writes it; a document that no longer reads is kept, not lost.
                    outcome.withLock { $0 = .unreadable(error) }
                    return nil
                }
            }
            let result = kept.merged(with: sent)
            guard result.count <= ProgressLimits.perUser else {
                outcome.withLock { $0 = .tooMuch }
                return nil
            }
            outcome.withLock { $0 = .merged(result) }
            return result == kept && current != nil ? nil : String(decoding: jsonData(result), as: UTF8.self)
        }
        switch outcome.withLock({ $0 }) {
        case .merged(let progress)?:
            metrics.progressMerges.increment()
            return jsonResponse(SyncedProgress(user: body.user, progress: progress))
        case .tooMuch?:
            throw APIError(
                .unprocessableContent, .tooMuchProgress,
                "the server keeps the progress of at most \(ProgressLimits.perUser) tips, tours and checklists per user")
        case .unreadable(let error)?:
            logger.error("stored progress does not read", metadata: ["app": "\(app.id)", "error": "\(error)"])
            throw APIError(.internalServerError, .internal, "the progress kept for this user cannot be read; nothing was changed")
        case nil:
            throw APIError(.internalServerError, .internal, "the progress was not merged")
        }
    }
}

/// What merging a device's progress into the stored document came to.
private enum ProgressMerge {
    case merged(UserProgress)
    /// Past ``ProgressLimits/perUser``: nothing was written.
    case tooMuch
    /// The stored document does not read: nothing was written.
    case unreadable(any Error)
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
