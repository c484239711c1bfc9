package io.durablecheckout.orchestrator.faults;

import jakarta.servlet.FilterChain;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code http-accepted} fires where it did inside the controller: after a new checkout was accepted, before any byte
 * of the answer left the process; never for a replayed request or a refusal.
 */
class HttpAcceptedCrashFilterTest {

    private final List<String> seenWhenReached = new ArrayList<>();
    private MockHttpServletResponse response;
    private final HttpAcceptedCrashFilter filter = new HttpAcceptedCrashFilter(() -> seenWhenReached.add(
            response.isCommitted() + "/" + response.getContentAsByteArray().length));

    private void post(int status, String replayed) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", HttpAcceptedCrashFilter.PATH);
        response = new MockHttpServletResponse();
        FilterChain controller = (req, res) -> {
            var http = (jakarta.servlet.http.HttpServletResponse) res;
            http.setStatus(status);
            if (replayed != null) {
                http.setHeader("Idempotent-Replayed", replayed);
            }
            http.getWriter().write("{\"checkoutId\":\"co_1\"}");
            http.flushBuffer(); // what Spring MVC does after writing a body
        };
        filter.doFilter(request, response, controller);
    }

    @Test
    void reachedAfterANewCheckoutWasAcceptedAndBeforeTheAnswerLeaves() throws Exception {
        post(202, "false");
        assertThat(seenWhenReached).containsExactly("false/0"); // not committed, nothing written
        assertThat(response.getContentAsString()).isEqualTo("{\"checkoutId\":\"co_1\"}"); // then answered in full
        assertThat(response.getStatus()).isEqualTo(202);
    }

    @Test
    void notReachedForAReplayOrARefusal() throws Exception {
        post(202, "true");
        post(422, null);
        post(429, null);
        assertThat(seenWhenReached).isEmpty();
    }
}
