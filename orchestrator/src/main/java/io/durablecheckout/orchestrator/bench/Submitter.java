package io.durablecheckout.orchestrator.bench;

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

    /**
     * {@code POST /api/v1/checkouts} on the application's port with the demo tenant's key, as a client would send it.
     * HTTP/1.1 with keep-alive (the JDK client pools connections); the harness's closed-loop threads block on the
     * answer, so at most C requests are open at once.
     */
    static Submitter http(int port, String apiKey) {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        ObjectMapper json = new ObjectMapper();
        URI uri = URI.create("http://localhost:" + port + "/api/v1/checkouts");
        return checkout -> {
            HttpRequest request = HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + apiKey)
                    .header("Idempotency-Key", checkout.idempotencyKey())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(checkout.request())))
                    .build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 202) {
                throw new IOException("HTTP " + response.statusCode() + ": " + response.body());
            }
        };
    }
}
