package io.durablecheckout.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablecheckout.orchestrator.service.CheckoutService;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** How a checkout reaches the application: the transport of a configuration. */
interface Submitter {

    /** Submits the checkout and returns once the application accepted it; throws if it did not. */
    void submit(Workload.Checkout checkout) throws Exception;

    /** {@code CheckoutService.submit}, the entry point the HTTP controller itself calls. */
    static Submitter inProcess(CheckoutService service) {
        return checkout -> service.submit(Workload.TENANT, checkout.idempotencyKey(), checkout.request());
    }

    /** Over HTTP with this run's tenant key, answers within 30 s. */
    static Http http(int port) {
        return new Http(port, Duration.ofSeconds(30));
    }

    /**
     * {@code POST /api/v1/checkouts} on the application's port with this run's tenant key, as a client would send
     * it. HTTP/1.1 with keep-alive (the JDK client pools connections); the harness's closed-loop threads block on the
     * answer, so at most C requests are open at once.
     */
    final class Http implements Submitter {

        private static final ObjectMapper JSON = new ObjectMapper();

        private final HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        private final URI uri;
        private final Duration timeout;

        Http(int port, Duration timeout) {
            this.uri = URI.create("http://localhost:" + port + "/api/v1/checkouts");
            this.timeout = timeout;
        }

        @Override
        public void submit(Workload.Checkout checkout) throws Exception {
            HttpResponse<String> response = client.send(request(checkout), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 202) {
                throw new IOException("HTTP " + response.statusCode() + ": " + response.body());
            }
        }

        /** The answer's status (202 accepted, 429 pushed back …), or -1 if none came. */
        int status(Workload.Checkout checkout) {
            try {
                return client.send(request(checkout), HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (IOException e) {
                return -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }

        private HttpRequest request(Workload.Checkout checkout) throws IOException {
            return HttpRequest.newBuilder(uri)
                    .timeout(timeout)
                    .header("Authorization", "Bearer " + BenchApplication.TENANT_KEY)
                    .header("Idempotency-Key", checkout.idempotencyKey())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(checkout.request())))
                    .build();
        }
    }
}
