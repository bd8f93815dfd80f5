import ArgumentParser
import Foundation
import WaymarkApplication
import WaymarkClickHouse
import WaymarkStore

extension Waymark {
    struct Backfill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backfill-analytics",
            abstract: "Copy the events the database has into the ClickHouse that --analytics names.",
            discussion: """
                What an installation runs once when it turns ClickHouse on: first the database keeps
                the analytics outbox (so every event stored from now on reaches ClickHouse through it,
                from a server given the same --analytics), then each app's events stored before are
                copied, oldest first, ten thousand at a time. ClickHouse keeps where each app's copy
                got to: run it again after it was stopped and it goes on from there. Events already in
                ClickHouse are not stored twice. Servers may run meanwhile.
                """
        )

        @Option(help: "Only this app (default: every app).")
        var app: String?

        @OptionGroup var options: ServerOptions

        mutating func run() async throws {
            let resolved = try options.resolve()
            guard let url = resolved.analytics else {
                throw ValidationError("name the ClickHouse to copy into with --analytics clickhouse://USER:PASSWORD@HOST:PORT/DATABASE")
            }
            let only = app
            let analytics = ClickHouseAnalytics(ClickHouse(url: url))
            let copied = try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { store -> [(String, Int)]? in
                let apps = try await store.apps().map(\.id).filter { only == nil || $0 == only }
                if let only, apps.isEmpty {
                    printError("error: no app \(only)")
                    return nil
                }
                try await store.keepAnalyticsOutbox()
                try await store.whileNoneShips { try await analytics.migrate() }
                var copied: [(String, Int)] = []
                for app in apps {
                    let count = try await analytics.backfill(app: app, from: store) { stored in
                        printError("\(app): \(stored) events copied so far")
                    }
                    copied.append((app, count))
                }
                return copied
            }
            guard let copied else { throw ExitCode(1) }
            for (app, count) in copied { print("\(app): \(count) events copied into \(url)") }
        }
    }
}

extension Waymark {
    struct StopAnalytics: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop-analytics-outbox",
            abstract: "Stop keeping the analytics outbox, for an installation that leaves ClickHouse.",
            discussion: """
                Once every server runs without --analytics, the reports count in the database again,
                and the outbox that fed ClickHouse only grows. This stops every write from keeping it
                and removes the entries waiting in it; ClickHouse learns nothing more. A server
                started with --analytics keeps it again, so run this after restarting them without.
                """
        )

        @OptionGroup var options: ServerOptions

        mutating func run() async throws {
            let resolved = try options.resolve()
            let waiting = try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { store in
                try await store.stopAnalyticsOutbox()
            }
            print("the analytics outbox is no longer kept; \(waiting) entries that waited in it were removed")
        }
    }
}
