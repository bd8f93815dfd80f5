import Foundation
import WaymarkAPI
import WaymarkClient

// What an app's own code does with the SDK: start it for a user, follow its render commands and
// tell it what the user does. Run with a server's address and a public key to try it against
// `swift run waymark demo` (the demo prints both); without them it only shows that it built.
let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]) else {
    print("ShopApp: built against WaymarkClient alone. Usage: ShopApp SERVER_URL PUBLIC_KEY")
    exit(0)
}
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shop-app-waymark")
let waymark = await WaymarkClient.start(
    key: arguments[2], server: server, user: "shop-app-user",
    context: ClientContext(platform: "ios", model: "iPhone15,2", appVersion: "1.4", locale: "hi-IN"),
    options: .init(directory: directory))
print("catalog:", waymark.catalog?.tips.map(\.id) ?? [])
let follower = Task {
    for await command in waymark.commands { print("render:", command.action, command.tip, waymark.tip(command.tip)?.content.title ?? "") }
}
waymark.record("activation")
waymark.record("screen", target: "home")
waymark.record("tap", target: "search")
try await Task.sleep(nanoseconds: 2_000_000_000)
follower.cancel()
await waymark.stop()
