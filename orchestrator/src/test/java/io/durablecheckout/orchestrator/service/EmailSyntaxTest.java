package io.durablecheckout.orchestrator.service;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The customer e-mail's syntax: deliverable addresses pass, markup and tricks do not. */
class EmailSyntaxTest {

    @ParameterizedTest
    @ValueSource(strings = {"a@b.co", "jane.doe@example.com", "o'brien+receipts@mail.example.org",
            "x_y-z@sub-domain.example.travel", "user@xn--bcher-kva.example", "1@2.example"})
    void deliverableAddressesPass(String email) {
        assertThat(CheckoutRequestValidator.EMAIL.matcher(email).matches()).as(email).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"<img/src=x/onerror=alert(3)>@example.com", "\"quoted\"@example.com", "a@b",
            "a@@example.com", "a@example..com", ".a@example.com", "a.@example.com", "a..b@example.com",
            "a@-example.com", "a@example-.com", "a@example.c0m1-", "a b@example.com", "a@example.com\n",
            "a(comment)@example.com", "jürgen@example.com", "a@exämple.com", "a@[127.0.0.1]", "a@127.0.0.1",
            "a@example.com>", "<a@example.com>", "a@example.com;b@example.com"})
    void markupQuotesCommentsAndMalformedHostsAreRefused(String email) {
        assertThat(CheckoutRequestValidator.EMAIL.matcher(email).matches()).as(email).isFalse();
    }

    @org.junit.jupiter.api.Test
    void theLocalPartIsAtMost64Characters() {
        assertThat(CheckoutRequestValidator.EMAIL.matcher("a".repeat(64) + "@example.com").matches()).isTrue();
        assertThat(CheckoutRequestValidator.EMAIL.matcher("a".repeat(65) + "@example.com").matches()).isFalse();
    }
}
