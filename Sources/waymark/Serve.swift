import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import WaymarkApplication
import WaymarkCatalog
import WaymarkClickHouse
import WaymarkConsole
import WaymarkNarration
import WaymarkPostgres
import WaymarkServer
import WaymarkStore
import Yams

/// Where the server listens and keeps its data. Each option comes from the flag, else the
/// environment (`WAYMARK_HOST`, `WAYMARK_PORT`, `WAYMARK_DATA_DIR`, `WAYMARK_DATABASE`,
/// `WAYMARK_LOG_LEVEL`, `WAYMARK_LOG_FORMAT`, `WAYMARK_NARRATION`, `WAYMARK_TRUSTED_PROXIES`,
/// `WAYMARK_WEBHOOK_TARGETS`, `WAYMARK_WEBHOOK_FIRST_RETRY`, `WAYMARK_IDLE_TIMEOUT`,
/// `WAYMARK_HEADER_TIMEOUT`, `WAYMARK_BODY_TIMEOUT`, `WAYMARK_BODY_MINIMUM_RATE`), else the config
/// file (`--config`, YAML with the keys host, port, dataDir, database, logLevel, logFormat,
/// narration, trustedProxies, webhookTargets, webhookFirstRetry, idleTimeout, headerTimeout,
/// bodyTimeout, bodyMinimumRate), else the default.
struct ServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp(ServerOptions.configHelp))
    var config: String?

    @Option(help: "The address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on (default 8080; 0 picks a free one).")
    var port: Int?

    @Option(name: .customLong("data-dir"), help: "The directory of the database (default ./waymark-data).")
    var dataDirectory: String?

    @Option(
        help: "postgres://user[:password]@host[:port]/database to keep everything in PostgreSQL instead of SQLite in the data directory.")
    var database: String?

    @Option(
        help:
            "clickhouse://user:password@host:port/database (clickhouses:// for HTTPS, ?sslrootcert=CA.pem for a CA of your own) to ship every event to ClickHouse and read the reports' counts there; the database stays the store of record."
    )
    var analytics: String?

    @Option(
        name: .customLong("log-level"),
        help: "trace, debug, info, notice, warning, error or critical (default info; debug logs every request).")
    var logLevel: String?

    @Option(name: .customLong("log-format"), help: "text, or json for one JSON object per line (default text).")
    var logFormat: String?

    @Option(help: "on: speak tips without a recording with espeak-ng and ffmpeg, if installed (the default); off: never.")
    var narration: String?

    @Option(
        name: .customLong("trusted-proxies"),
        help:
            "The load balancers in front of the server, whose X-Forwarded-For names the client: addresses or ranges, comma-separated (10.0.0.0/8,fd00::/8). Default: none, the peer is the client."
    )
    var trustedProxies: String?

    @Option(
        name: .customLong("webhook-targets"),
        help:
            "public: webhook endpoints only on public addresses (the default); any: also on this machine and private networks (for testing)."
    )
    var webhookTargets: String?

    @Option(
        name: .customLong("webhook-first-retry"),
        help: "Seconds from a failed webhook delivery to its first retry; each later wait doubles, up to six hours (default 30).")
    var webhookFirstRetry: Double?

    @Option(
        name: .customLong("idle-timeout"),
        help: "Seconds a connection with no request under way may stay open without a byte (default 60).")
    var idleTimeout: Double?

    @Option(
        name: .customLong("header-timeout"),
        help: "Seconds a request's line and headers may take to arrive, from its first byte (default 20).")
    var headerTimeout: Double?

    @Option(
        name: .customLong("body-timeout"),
        help: "Seconds a request's body may take to arrive after its headers, plus one for every --body-minimum-rate bytes (default 20).")
    var bodyTimeout: Double?

    @Option(
        name: .customLong("body-minimum-rate"),
        help: "The slowest upload taken, in bytes a second: each that many bytes of a body buy one more second (default 500).")
    var bodyMinimumRate: Int?

    /// The config file's keys.
    static let configKeys = [
        "host", "port", "dataDir", "database", "analytics", "logLevel", "logFormat", "narration", "trustedProxies", "webhookTargets",
        "webhookFirstRetry", "idleTimeout", "headerTimeout", "bodyTimeout", "bodyMinimumRate",
    ]
    static let configHelp = "A YAML file with " + configKeys.joined(separator: ", ") + "."

    struct Resolved {
        var host: String
        var port: Int
        var dataDirectory: String
        /// A PostgreSQL URL, or nil for SQLite in `dataDirectory`.
        var database: String?
        /// The ClickHouse of the analytics, or nil to keep them in the database.
        var analytics: ClickHouseURL?
        var logLevel: Logger.Level
        var logFormat: LogFormat
        /// Whether this server makes narration.
        var narration: Bool
        var trustedProxies: TrustedProxies
        /// Whether webhook endpoints may be on this machine or a private network.
        var webhooksToPrivateNetworks: Bool
        var webhookFirstRetry: TimeInterval
        var connectionLimits: ConnectionLimits
    }

    func resolve(defaultDataDirectory: String = "waymark-data") throws -> Resolved {
        let environment = ProcessInfo.processInfo.environment
        var file: [String: String] = [:]
        if let config {
            guard let text = try? String(contentsOfFile: config, encoding: .utf8) else {
                throw ValidationError("cannot read the config file \(config)")
            }
            guard let mapping = (try? Yams.compose(yaml: text))??.mapping else {
                throw ValidationError("the config file \(config) must be a YAML mapping")
            }
            for (key, value) in mapping {
                guard let name = key.string, Self.configKeys.contains(name), let text = value.string else {
                    throw ValidationError(
                        "\(config): unknown key \(key.string ?? "?"); the keys are \(Self.configKeys.joined(separator: ", "))")
                }
                file[name] = text
            }
        }
        let portText = port.map(String.init) ?? environment["WAYMARK_PORT"] ?? file["port"] ?? "8080"
        guard let resolvedPort = Int(portText), (0...65535).contains(resolvedPort) else {
            throw ValidationError("port must be a number from 0 to 65535, not \(portText)")
        }
        let levelText = logLevel ?? environment["WAYMARK_LOG_LEVEL"] ?? file["logLevel"] ?? "info"
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ValidationError("unknown log level \(levelText)")
        }
        let formatText = logFormat ?? environment["WAYMARK_LOG_FORMAT"] ?? file["logFormat"] ?? "text"
        guard let format = LogFormat(rawValue: formatText) else {
            throw ValidationError("unknown log format \(formatText); use text or json")
        }
        let narrationText = narration ?? environment["WAYMARK_NARRATION"] ?? file["narration"] ?? "on"
        guard ["on", "off"].contains(narrationText) else {
            throw ValidationError("narration is on or off, not \(narrationText)")
        }
        let proxiesText = trustedProxies ?? environment["WAYMARK_TRUSTED_PROXIES"] ?? file["trustedProxies"] ?? ""
        let proxies: TrustedProxies
        do { proxies = try TrustedProxies(parsing: proxiesText) } catch { throw ValidationError("trusted proxies: \(error)") }
        let targetsText = webhookTargets ?? environment["WAYMARK_WEBHOOK_TARGETS"] ?? file["webhookTargets"] ?? "public"
        guard ["public", "any"].contains(targetsText) else {
            throw ValidationError("webhook targets are public or any, not \(targetsText)")
        }
        let retryText = webhookFirstRetry.map { "\($0)" } ?? environment["WAYMARK_WEBHOOK_FIRST_RETRY"] ?? file["webhookFirstRetry"] ?? "30"
        guard let firstRetry = TimeInterval(retryText), (0.1...86_400).contains(firstRetry) else {
            throw ValidationError("the first webhook retry is from 0.1 to 86400 seconds, not \(retryText)")
        }
        func seconds(_ flag: Double?, _ variable: String, _ key: String, default value: Double, name: String) throws -> Duration {
            let text = flag.map { "\($0)" } ?? environment[variable] ?? file[key] ?? "\(value)"
            guard let number = Double(text), (0.1...86_400).contains(number) else {
                throw ValidationError("the \(name) is from 0.1 to 86400 seconds, not \(text)")
            }
            return .milliseconds(Int64(number * 1000))
        }
        let rateText = bodyMinimumRate.map(String.init) ?? environment["WAYMARK_BODY_MINIMUM_RATE"] ?? file["bodyMinimumRate"] ?? "500"
        guard let rate = Int(rateText), (1...100_000_000).contains(rate) else {
            throw ValidationError("the body's minimum rate is from 1 to 100000000 bytes a second, not \(rateText)")
        }
        let limits = ConnectionLimits(
            idle: try seconds(idleTimeout, "WAYMARK_IDLE_TIMEOUT", "idleTimeout", default: 60, name: "idle timeout"),
            header: try seconds(headerTimeout, "WAYMARK_HEADER_TIMEOUT", "headerTimeout", default: 20, name: "header timeout"),
            body: try seconds(bodyTimeout, "WAYMARK_BODY_TIMEOUT", "bodyTimeout", default: 20, name: "body timeout"),
            bodyMinimumRate: rate)
        var clickHouse: ClickHouseURL?
        if let text = analytics ?? environment["WAYMARK_ANALYTICS"] ?? file["analytics"] {
            do { clickHouse = try ClickHouseURL(text) } catch { throw ValidationError("analytics: \(error.message)") }
        }
        return Resolved(
            host: host ?? environment["WAYMARK_HOST"] ?? file["host"] ?? "127.0.0.1",
            port: resolvedPort,
            dataDirectory: dataDirectory ?? environment["WAYMARK_DATA_DIR"] ?? file["dataDir"] ?? defaultDataDirectory,
            database: database ?? environment["WAYMARK_DATABASE"] ?? file["database"],
            analytics: clickHouse,
            logLevel: level,
            logFormat: format,
            narration: narrationText == "on",
            trustedProxies: proxies,
            webhooksToPrivateNetworks: targetsText == "any",
            webhookFirstRetry: firstRetry,
            connectionLimits: limits
        )
    }
}

extension ServerOptions.Resolved {
    /// Where the data lives: PostgreSQL with `database`, else SQLite in the data directory.
    var storage: Storage { database.map { .postgres(url: $0) } ?? .sqlite(dataDirectory: dataDirectory) }

    /// The application's configuration; with narration on, espeak-ng and ffmpeg from `PATH`, or a
    /// warning that this server makes none.
    func applicationConfiguration(logger: Logger) -> WaymarkConfiguration {
        var configuration = WaymarkConfiguration(
            host: host, port: port, trustedProxies: trustedProxies, webhooksToPrivateNetworks: webhooksToPrivateNetworks,
            webhookFirstRetry: webhookFirstRetry, connectionLimits: connectionLimits)
        configuration.analytics = analytics
        if narration {
            switch ESpeakSynthesizer.onPath() {
            case .success(let synthesizer): configuration.synthesizer = synthesizer
            case .failure(let error): logger.warning("this server makes no narration", metadata: ["reason": "\(error)"])
            }
        }
        return configuration
    }
}

/// Sets up the process's logging, as the options say, and with `metrics` its metrics, which then
/// report into the registry `/metrics` shows. Called once, at the start of a command.
func bootstrap(_ options: ServerOptions.Resolved, metrics: ServerMetrics? = nil) -> Logger {
    let level = options.logLevel
    switch options.logFormat {
    case .text:
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    case .json:
        LoggingSystem.bootstrap { label in
            var handler = JSONLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
    }
    if let metrics { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry)) }
    return Logger(label: "waymark")
}

/// Runs `body` with the store of `storage`; one that cannot be opened ends the command with its
/// message and exit status 1.
func withStoreOrExit<T: Sendable>(_ storage: Storage, logger: Logger, _ body: (any Store) async throws -> T) async throws -> T {
    do {
        return try await withStore(storage, logger: logger, body)
    } catch let error as StorageError {
        printError("error: \(error)")
        throw ExitCode(1)
    }
}

extension Waymark {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the Waymark server: authoring, delivery, events and rewards, on SQLite or PostgreSQL (--database)."
        )

        @OptionGroup var options: ServerOptions

        mutating func run() async throws {
            let resolved = try options.resolve()
            let metrics = ServerMetrics()
            let logger = bootstrap(resolved, metrics: metrics)
            let configuration = resolved.applicationConfiguration(logger: logger)
            try await withStoreOrExit(resolved.storage, logger: logger) { store in
                // The database keeps the analytics outbox for ClickHouse, which this server does
                // not ship: it grows until a server with --analytics takes it.
                if configuration.analytics == nil, let outbox = try? await store.analyticsOutbox(), outbox.kept {
                    logger.warning(
                        "the database keeps an analytics outbox for ClickHouse, but this server was given no --analytics to ship it",
                        metadata: ["waiting": "\(outbox.waiting)"])
                }
                let app = buildApplication(
                    configuration, store: store, logger: logger, metrics: metrics,
                    onServerRunning: { port in
                        logger.notice(
                            "waymark listening",
                            metadata: ["url": "http://\(resolved.host):\(port)", "data": "\(resolved.storage.description)"])
                    }
                )
                try await app.runService()
            }
        }
    }

    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start the server on a fresh data directory with the demo shop published, and print its keys.",
            discussion: """
                The same facts go to DATA_DIR/demo.json for scripts. With --database, the demo keeps
                everything in that PostgreSQL database, which must hold no app yet. Stop it with Ctrl-C.
                """
        )

        @OptionGroup var options: ServerOptions

        mutating func run() async throws {
            let resolved = try options.resolve(
                defaultDataDirectory: (NSTemporaryDirectory() as NSString).appendingPathComponent(
                    "waymark-demo-\(ProcessInfo.processInfo.processIdentifier)")
            )
            let directory = resolved.dataDirectory
            if FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("waymark.sqlite")) {
                printError("error: \(directory) already has a database; the demo starts from a fresh data directory")
                throw ExitCode(1)
            }
            guard let url = Bundle.module.url(forResource: "shop", withExtension: "yaml"),
                let shopText = try? String(contentsOf: url, encoding: .utf8),
                let demoPages = Bundle.module.resourceURL?.appendingPathComponent("demo").path,
                let pageURL = Bundle.module.url(forResource: "shop", withExtension: "html"),
                let pageTemplate = try? String(contentsOf: pageURL, encoding: .utf8)
            else {
                printError("error: the demo catalog is missing from the installation")
                throw ExitCode(1)
            }
            let metrics = ServerMetrics()
            let logger = bootstrap(resolved, metrics: metrics)
            let configuration = resolved.applicationConfiguration(logger: logger)
            // demo.json and the sample events go in the data directory, also when the data is in PostgreSQL.
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try await withStoreOrExit(resolved.storage, logger: logger) { store in
                if resolved.database != nil, !(try await store.apps().isEmpty) {
                    printError("error: the database already holds apps; the demo starts from an empty database")
                    throw ExitCode(1)
                }
                let made = try await Provisioning.createApp(name: "Demo shop", in: store)
                // The console's owner, with a password made now and shown below: there is no default one.
                let owner = (email: "owner@demo.example", password: Accounts.generatePassword())
                try await Accounts.addMember(email: owner.email, password: owner.password, role: .owner, app: made.appId, in: store)
                let (ports, listening) = AsyncStream.makeStream(of: Int.self)
                let publisher = DemoPublisher(
                    ports: ports, shopText: shopText, app: made, owner: owner, host: resolved.host, directory: directory, store: store
                )
                let app = buildApplication(
                    configuration, store: store, logger: logger, metrics: metrics,
                    routes: { router in
                        // The demo shop's pages and videos, and its stand-in for an app's own backend: it
                        // names the user and signs the identity proof that reward claims need.
                        let page = DemoPage(template: pageTemplate, clientKey: made.clientKey, identitySecret: made.identitySecret)
                        let fallbackHost = "\(resolved.host):\(resolved.port)"
                        router.add(middleware: FileMiddleware(demoPages, urlBasePath: "/demo", searchForIndexHtml: false, logger: logger))
                        router.get("/demo/") { request, _ in try page.response(request, fallbackHost: fallbackHost) }
                        router.get("/demo/index.html") { request, _ in try page.response(request, fallbackHost: fallbackHost) }
                        router.get("/demo/session") { request, _ in
                            page.session(user: try DemoPage.user(request), request: request, fallbackHost: fallbackHost)
                        }
                    },
                    services: [publisher],
                    onServerRunning: { port in listening.yield(port) }
                )
                try await app.runService()
            }
        }
    }

    /// Publishes the demo shop once the server listens (its videos are served from the server's own
    /// address), seeds the sample traffic, and prints what to open. A failure stops the server: the
    /// error ends the command.
    struct DemoPublisher: Service {
        let ports: AsyncStream<Int>
        let shopText: String
        let app: Provisioning.NewApp
        let owner: (email: String, password: String)
        let host: String
        let directory: String
        let store: any Store

        func run() async throws {
            var waiting = ports.makeAsyncIterator()
            guard let port = await waiting.next() else { return }
            let base = "http://\(host):\(port)"
            let sampleCount: Int
            do {
                // The tour's videos are served by this demo under /demo/media.
                let text = shopText.replacingOccurrences(of: "https://media.example.com/", with: "\(base)/demo/media/")
                let catalog = try CatalogDocument.parse(text, file: "shop.yaml")
                try await Provisioning.publish(catalog, app: app.appId, note: "demo", in: store)
                sampleCount = try await DemoTraffic.seed(catalog: catalog, app: app.appId, store: store, directory: directory)
            } catch {
                throw ValidationError("the demo catalog cannot be published: \(error)")
            }
            let facts = DemoFacts(
                server: base, appId: app.appId, clientKey: app.clientKey, secretKey: app.secretKey,
                identitySecret: app.identitySecret, dataDir: directory, consoleEmail: owner.email, consolePassword: owner.password
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(facts).write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent("demo.json")))
            FileHandle.standardOutput.write(
                Data(
                    """
                    Waymark demo: the demo shop's catalog is published.

                      shop            \(base)/demo/   (open it in a browser; ?locale=hi-IN for Hindi)
                      console         \(base)/console/   (sign in as \(owner.email), password \(owner.password))
                      server          \(base)
                      app id          \(app.appId)
                      client key      \(app.clientKey)
                      secret key      \(app.secretKey)
                      identity secret \(app.identitySecret)
                      data            \(directory)  (facts also in demo.json)
                      sample traffic  \(sampleCount) events of \(DemoTraffic.days) days before today (sample-events.jsonl), in the console's analytics

                    Try:
                      curl -H 'Authorization: Bearer \(app.clientKey)' '\(base)/v1/catalog?platform=ios&model=iPhone15,2&appVersion=1.4&locale=hi-IN&user=u1'

                    Ctrl-C stops it.

                    """.utf8))
            // Done: wait, as every service does, for the server to stop.
            try? await gracefulShutdown()
        }
    }

    struct Apps: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create and list apps, and set how long they keep events.", subcommands: [Create.self, List.self, Retention.self]
        )

        struct Retention: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Set how many days an app keeps its events (--days N), or keep them forever (--forever, the default).",
                discussion: "The server removes older events every hour, a thousand at a time."
            )

            @Option(help: "The app's id.")
            var app: String

            @Option(help: "Keep events this many days (1 to 36500).")
            var days: Int?

            @Flag(help: "Keep events forever.")
            var forever = false

            @OptionGroup var options: ServerOptions

            mutating func run() async throws {
                guard (days != nil) != forever else { throw ValidationError("give --days N or --forever") }
                if let problem = EventRetention.problem(days: days) { throw ValidationError(problem) }
                let resolved = try options.resolve()
                let (app, days) = (app, days)
                let found = try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { store in
                    guard try await store.app(id: app) != nil else { return false }
                    try await EventRetention.set(app: app, days: days, actor: .cli, at: Date(), in: store)
                    return true
                }
                guard found else {
                    printError("error: no app \(app)")
                    throw ExitCode(1)
                }
                print(days.map { "\(app) keeps its events \($0) days." } ?? "\(app) keeps its events forever.")
            }
        }

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Create an app with a client key, a secret key and an identity secret, shown once."
            )

            @Argument(help: "The app's name.")
            var name: String

            @OptionGroup var options: ServerOptions

            mutating func run() async throws {
                let resolved = try options.resolve()
                let made = try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { [name] store in
                    try await Provisioning.createApp(name: name, in: store)
                }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(made), as: UTF8.self))
                printError("Keep these now: the keys and the identity secret are not shown again.")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the apps.")

            @OptionGroup var options: ServerOptions

            mutating func run() async throws {
                let resolved = try options.resolve()
                for app in try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved), { try await $0.apps() }) {
                    print("\(app.id)\t\(app.name)")
                }
            }
        }
    }

    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give people access to the console.", subcommands: [Add.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a console user to an app with a role (the first owner is made this way).",
                discussion: """
                    A new user gets the password read from standard input with --password-stdin, or else a
                    generated one, printed once. An existing user keeps their password and gets the role.
                    """
            )

            @Argument(help: "The user's email address.")
            var email: String

            @Option(help: "The app's id.")
            var app: String

            @Option(help: "viewer (reads), editor (also edits and publishes) or owner (also manages members and keys).")
            var role: Role = .editor

            @Flag(help: "Read the new user's password from standard input instead of generating one.")
            var passwordStdin = false

            @OptionGroup var options: ServerOptions

            mutating func run() async throws {
                let resolved = try options.resolve()
                try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { [email, app, role, passwordStdin] store in
                    var password: String?
                    var generated = false
                    if passwordStdin {
                        password = readLine(strippingNewline: true)
                    } else if try await store.user(email: email.lowercased().trimmingCharacters(in: .whitespaces)) == nil {
                        password = Accounts.generatePassword()
                        generated = true
                    }
                    do {
                        let created = try await Accounts.addMember(email: email, password: password, role: role, app: app, in: store)
                        print("\(email) is \(role.rawValue) of \(app)\(created ? " (new user)" : "")")
                        if created, generated, let password {
                            print("password: \(password)")
                            printError("Keep it now: it is not shown again.")
                        }
                    } catch let error as Accounts.AccountError {
                        printError("error: \(error)")
                        throw ExitCode(1)
                    }
                }
            }
        }
    }

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create keys.", subcommands: [Create.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create a key for an app, shown once.")

            @Option(help: "The app's id.")
            var app: String

            @Option(help: "client (publishable, goes into apps) or secret (admin and server-to-server).")
            var kind: KeyRecord.Kind = .secret

            @OptionGroup var options: ServerOptions

            mutating func run() async throws {
                let resolved = try options.resolve()
                let made = try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { [app, kind] store in
                    try await Provisioning.createKey(app: app, kind: kind, actor: .cli, in: store)
                }
                guard let made else {
                    printError("error: no app \(app)")
                    throw ExitCode(1)
                }
                print(made.key)
                printError("Keep it now: key \(made.record.id) is not shown again.")
            }
        }
    }
}

/// What the demo shop's page learns from its stand-in backend.
struct DemoSession: ResponseEncodable {
    var server: String
    var clientKey: String
    var user: String
    var userHash: String
}

struct DemoFacts: Codable {
    var server: String
    var appId: String
    var clientKey: String
    var secretKey: String
    var identitySecret: String
    var dataDir: String
    var consoleEmail: String
    var consolePassword: String
}

extension Role: ExpressibleByArgument {}
extension KeyRecord.Kind: ExpressibleByArgument {}
