package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.it.support.SignInClient;
import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 53, item 1: started as a process on Kubernetes would be (KUBERNETES_SERVICE_HOST and _PORT set) and nothing
 * else, Spring Boot trusted X-Forwarded-For and -Proto from every private or loopback peer: 60 wrong keys each
 * claiming a new address were never locked, 20 claiming one victim's address locked the victim out, and
 * {@code X-Forwarded-Proto: https} made the session cookie Secure. Now the defaults trust nobody: the throttle counts
 * the real peer (here 127.0.0.1, and 127.0.0.2 as a second client), whatever the headers claim.
 */
class ForwardedHeadersIT {

    private static final String WRONG_KEY = "ck_wrong-" + UUID.randomUUID();
    private static final String VICTIM = "203.0.113.77";

    static EmbeddedPostgresServer postgres;
    static NodeProcess node;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "forwarded-pg-");
        postgres = EmbeddedPostgresServer.start(dir, 0);
        node = NodeProcess.start("forwarded-kubernetes", postgres.jdbcUrl(), List.of(), List.of("-Xmx512m"),
                Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) node.close();
        if (postgres != null) postgres.close();
    }

    @Test
    void onKubernetesWithDefaultsNoForwardedHeaderIsTrusted() throws Exception {
        assertThat(Files.readString(node.log())).contains("Forwarded headers trusted from: nobody");

        // X-Forwarded-Proto: https from an untrusted peer does not make the session cookie Secure
        HttpApi.Response signedIn = new SignInClient(node.port()).signIn(null, true, "operator",
                HttpApi.OPERATOR_KEY);
        assertThat(signedIn.status()).isEqualTo(302);
        assertThat(signedIn.header("Location")).as("no https redirect either").doesNotStartWith("https://");
        assertThat(signedIn.header("Set-Cookie")).startsWith("JSESSIONID=").contains("; SameSite=Strict")
                .doesNotContain("Secure");

        // 20 wrong keys from 127.0.0.1, each claiming another address: the real peer is locked out ...
        for (int i = 1; i <= 20; i++) {
            assertThat(status("127.0.0.1", WRONG_KEY, "198.51.100." + i)).as("wrong key %d", i).isEqualTo(401);
        }
        assertThat(status("127.0.0.1", HttpApi.DEMO_KEY, "198.51.100.200"))
                .as("the right key from the locked peer, claiming a fresh address").isEqualTo(429);
        // ... and its further failures, claiming the victim's address, put nothing on the victim
        for (int i = 1; i <= 20; i++) {
            assertThat(status("127.0.0.1", WRONG_KEY, VICTIM)).isIn(401, 429);
        }
        assertThat(status("127.0.0.2", HttpApi.DEMO_KEY, VICTIM))
                .as("another client whose requests name the 'victim' address").isEqualTo(200);
        assertThat(status("127.0.0.2", HttpApi.DEMO_KEY, null)).isEqualTo(200);
    }

    /** One HTTP/1.1 request from {@code from} (a loopback address), returning the status code. */
    private static int status(String from, String key, String forwardedFor) throws IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", node.port()), 10_000);
            socket.setSoTimeout(30_000);
            String request = "GET /api/v1/checkouts?limit=1 HTTP/1.1\r\nHost: localhost\r\n"
                    + "Authorization: Bearer " + key + "\r\n"
                    + (forwardedFor == null ? "" : "X-Forwarded-For: " + forwardedFor + "\r\n")
                    + "Connection: close\r\n\r\n";
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String statusLine = new String(in.readNBytes(12), StandardCharsets.US_ASCII); // "HTTP/1.1 200"
            return Integer.parseInt(statusLine.substring(9, 12));
        }
    }
}
