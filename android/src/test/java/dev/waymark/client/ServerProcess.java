package dev.waymark.client;

import java.io.File;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.json.JSONObject;

/**
 * A {@code waymark serve} process on a port of its own, on a data directory that outlives it, so
 * that a test can stop the server (the phone goes offline) and start it again on the same port.
 * The binary comes from {@code -Dwaymark.binary} (android/make passes WAYMARK_BINARY), else the
 * package's debug build.
 */
final class ServerProcess implements AutoCloseable {
    static final File ROOT = new File(System.getProperty("waymark.conformance", "../conformance")).getAbsoluteFile().getParentFile();

    final File directory;
    final int port;
    final String url;
    private Process process;
    private File log;

    ServerProcess(File directory) throws IOException {
        this.directory = directory;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        url = "http://127.0.0.1:" + port;
    }

    static File binary() {
        String path = System.getProperty("waymark.binary", "");
        File binary = path.isEmpty() ? new File(ROOT, ".build/debug/waymark") : new File(path);
        if (!binary.canExecute()) throw new IllegalStateException("no waymark binary at " + binary + ": set WAYMARK_BINARY or swift build");
        return binary;
    }

    /** Runs {@code waymark ARGUMENTS} to its end and answers what it printed; a failure is an exception with its errors. */
    static String run(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<String>();
        command.add(binary().getPath());
        command.addAll(Arrays.asList(arguments));
        File output = File.createTempFile("waymark-run", ".out");
        File errors = File.createTempFile("waymark-run", ".err");
        try {
            Process process = new ProcessBuilder(command).directory(ROOT).redirectOutput(output).redirectError(errors).start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("waymark " + arguments[0] + " did not end within 120 s");
            }
            String printed = new String(Files.readAllBytes(output.toPath()), StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IOException("waymark " + arguments[0] + ": " + new String(Files.readAllBytes(errors.toPath()), StandardCharsets.UTF_8));
            }
            return printed;
        } finally {
            output.delete();
            errors.delete();
        }
    }

    /** Starts the server and waits up to 30 s for it to listen. */
    void start() throws Exception {
        log = File.createTempFile("waymark-serve", ".log");
        process = new ProcessBuilder(binary().getPath(), "serve", "--port", String.valueOf(port), "--data-dir", directory.getPath(),
            "--log-format", "json", "--narration", "off").directory(ROOT).redirectError(log).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (new String(Files.readAllBytes(log.toPath()), StandardCharsets.UTF_8).contains("waymark listening")) return;
            if (!process.isAlive()) break;
            Thread.sleep(50);
        }
        String said = new String(Files.readAllBytes(log.toPath()), StandardCharsets.UTF_8);
        stop();
        throw new IOException("the server did not start listening: " + said);
    }

    /** Stops the server (SIGTERM, then SIGKILL after 30 s). */
    void stop() throws InterruptedException {
        if (process == null) return;
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
        process = null;
        if (log != null) log.delete();
    }

    @Override public void close() throws InterruptedException { stop(); }

    /** A GET of the admin API with the app's secret key: status and body. */
    String admin(String path, String secretKey) throws IOException {
        return admin("GET", path, secretKey, null);
    }

    /** A request of the admin API with the app's secret key and a JSON or YAML body (or none): status and body. */
    String admin(String method, String path, String secretKey, String body) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(url + path).openConnection();
        connection.setRequestMethod(method);
        connection.setRequestProperty("Authorization", "Bearer " + secretKey);
        if (body != null) {
            connection.setDoOutput(true);
            connection.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
        }
        int status = connection.getResponseCode();
        java.io.InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
        String answer = in == null ? "" : new String(readAll(in), StandardCharsets.UTF_8);
        connection.disconnect();
        return status + " " + answer;
    }

    private static byte[] readAll(java.io.InputStream in) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0;) out.write(buffer, 0, n);
        in.close();
        return out.toByteArray();
    }

    /** The proof of a user an app's backend makes: HMAC-SHA256 of the user's id with the app's identity secret, in hex. */
    static String userHash(String user, String identitySecret) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(identitySecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        StringBuilder hex = new StringBuilder();
        for (byte b : mac.doFinal(user.getBytes(StandardCharsets.UTF_8))) hex.append(String.format("%02x", b));
        return hex.toString();
    }

    /** A new app on this server's data (the server may be stopped), with the demo shop's catalog published through it once it runs. */
    static JSONObject createApp(File directory) throws Exception {
        return new JSONObject(run("apps", "create", "Shop", "--data-dir", directory.getPath()));
    }

    void publishShop(String secretKey) throws Exception {
        run("push", "examples/shop.yaml", "--publish", "--server", url, "--key", secretKey);
    }

    /** Publishes the demo shop's catalog with {@code tips} (YAML list items, indented by two) added first. */
    void publishShopWith(String secretKey, String tips) throws Exception {
        String shop = new String(Files.readAllBytes(new File(ROOT, "examples/shop.yaml").toPath()), StandardCharsets.UTF_8);
        File catalog = File.createTempFile("waymark-shop", ".yaml");
        try {
            Files.write(catalog.toPath(), shop.replace("\ntips:\n", "\ntips:\n" + tips).getBytes(StandardCharsets.UTF_8));
            run("push", catalog.getPath(), "--publish", "--server", url, "--key", secretKey);
        } finally {
            catalog.delete();
        }
    }
}
