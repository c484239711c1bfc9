package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A provider that cannot be reached says where and why, never "connection refused: null". */
class HttpPaymentProviderTest {

    static final OperationId OP = OperationId.of(new CheckoutId("chk-unreachable"), Step.AUTHORIZE_PAYMENT);
    static final Money AMOUNT = new Money(1_999, "EUR");

    @Test
    void aPlaceholderHostIsReportedAsAnUnknownHost() {
        PaymentProvider.AuthorizationAnswer answer = new HttpPaymentProvider(() -> "https://provider.invalid/api",
                Duration.ofMillis(500), Duration.ofMillis(500)).authorize(OP, AMOUNT, "tok_approve");
        assertThat(answer.status()).isEqualTo(AuthorizationStatus.UNAVAILABLE);
        assertThat(answer.detail())
                .isEqualTo("cannot connect to provider.invalid: unknown host (checkout.payments.provider-url)");
    }

    @Test
    void aClosedPortIsReportedWithTheHostAndPort() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        int port = closed;
        PaymentProvider.AuthorizationAnswer answer = new HttpPaymentProvider(() -> "http://localhost:" + port,
                Duration.ofMillis(500), Duration.ofMillis(500)).authorize(OP, AMOUNT, "tok_approve");
        assertThat(answer.status()).isEqualTo(AuthorizationStatus.UNAVAILABLE);
        assertThat(answer.detail()).startsWith("cannot connect to localhost:" + port + ": ").doesNotContain("null");
    }
}
