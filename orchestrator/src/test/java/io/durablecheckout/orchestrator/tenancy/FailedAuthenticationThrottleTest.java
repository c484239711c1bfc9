package io.durablecheckout.orchestrator.tenancy;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The window per source, on a clock the test moves: no waiting. */
class FailedAuthenticationThrottleTest {

    /** A clock the test sets; the throttle reads it on every call. */
    static final class MovableClock extends Clock {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }
    }

    private final MovableClock clock = new MovableClock();
    private final FailedAuthenticationThrottle.Properties defaults =
            new FailedAuthenticationThrottle.Properties(null, null, null, null, null, null);

    @Test
    void theDefaultsAreTwentyFailuresInFifteenMinutesForTenThousandSources() {
        assertThat(defaults.maxFailures()).isEqualTo(20);
        assertThat(defaults.window()).isEqualTo(Duration.ofMinutes(15));
        assertThat(defaults.maxSources()).isEqualTo(10_000);
        assertThat(defaults.exemptSources()).isEmpty();
    }

    @Test
    void theTwentiethFailureLocksTheSourceUntilItsWindowEndsThenItStartsAfresh() {
        FailedAuthenticationThrottle throttle = new FailedAuthenticationThrottle(clock, defaults);
        for (int i = 1; i < 20; i++) {
            throttle.failed("198.51.100.1", "test");
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(throttle.lockedFor("198.51.100.1")).as("19 failures").isZero();
        throttle.failed("198.51.100.1", "test");
        // the window opened at the first failure, 19 s ago: 15 min less 19 s left
        assertThat(throttle.lockedFor("198.51.100.1")).isEqualTo(900 - 19);
        assertThat(throttle.lockedFor("198.51.100.2")).as("another source").isZero();

        clock.advance(Duration.ofSeconds(900 - 19).minusMillis(1));
        assertThat(throttle.lockedFor("198.51.100.1")).as("a millisecond before the end: one more second").isEqualTo(1);
        clock.advance(Duration.ofMillis(1));
        assertThat(throttle.lockedFor("198.51.100.1")).isZero();

        throttle.failed("198.51.100.1", "test");
        assertThat(throttle.lockedFor("198.51.100.1")).as("one failure of a new window").isZero();
    }

    @Test
    void aLockedSourceIsAnswered429ProblemWithRetryAfter() throws Exception {
        FailedAuthenticationThrottle throttle = new FailedAuthenticationThrottle(clock,
                new FailedAuthenticationThrottle.Properties(2, Duration.ofSeconds(60), null, null, null, null));
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/login");
        request.setRemoteAddr("203.0.113.9");
        assertThat(throttle.refuseIfLocked(request, new MockHttpServletResponse())).isFalse();
        throttle.failed("203.0.113.9", "test");
        throttle.failed("203.0.113.9", "test");
        MockHttpServletResponse response = new MockHttpServletResponse();
        assertThat(throttle.refuseIfLocked(request, response)).isTrue();
        assertThat(response.getStatus()).isEqualTo(429);
        assertThat(response.getHeader("Retry-After")).isEqualTo("60");
        assertThat(response.getContentType()).startsWith("application/problem+json");
        assertThat(response.getContentAsString()).contains("too-many-failed-authentications");
    }

    @Test
    void exemptSourcesAreNeverCountedAndZeroTurnsTheThrottleOff() {
        FailedAuthenticationThrottle exempting = new FailedAuthenticationThrottle(clock,
                new FailedAuthenticationThrottle.Properties(1, null, null, List.of("127.0.0.1", "::1"), null, null));
        exempting.failed("127.0.0.1", "test");
        exempting.failed("0:0:0:0:0:0:0:1", "test"); // as the container reports ::1
        exempting.failed("127.0.0.2", "test");
        assertThat(exempting.lockedFor("127.0.0.1")).isZero();
        assertThat(exempting.lockedFor("0:0:0:0:0:0:0:1")).isZero();
        assertThat(exempting.lockedFor("127.0.0.2")).isPositive();

        FailedAuthenticationThrottle off = new FailedAuthenticationThrottle(clock,
                new FailedAuthenticationThrottle.Properties(0, null, null, null, null, null));
        for (int i = 0; i < 100; i++) off.failed("198.51.100.1", "test");
        assertThat(off.lockedFor("198.51.100.1")).isZero();
        assertThat(off.tracked()).isZero();
    }

    @Test
    void manySourcesCostBoundedMemoryTheExpiredGoingFirstThenTheOldest() {
        FailedAuthenticationThrottle throttle = new FailedAuthenticationThrottle(clock,
                new FailedAuthenticationThrottle.Properties(1, Duration.ofMinutes(1), 3, null, null, null));
        throttle.failed("10.0.0.1", "test");
        clock.advance(Duration.ofMinutes(2)); // 10.0.0.1's window has ended
        throttle.failed("10.0.0.2", "test");
        clock.advance(Duration.ofSeconds(1));
        throttle.failed("10.0.0.3", "test");
        clock.advance(Duration.ofSeconds(1));
        throttle.failed("10.0.0.4", "test"); // full: the expired one goes
        assertThat(throttle.tracked()).isEqualTo(3);
        assertThat(throttle.lockedFor("10.0.0.2")).isPositive();

        throttle.failed("10.0.0.5", "test"); // full, none expired: the oldest (10.0.0.2) goes
        assertThat(throttle.tracked()).isEqualTo(3);
        assertThat(throttle.lockedFor("10.0.0.2")).isZero();
        assertThat(throttle.lockedFor("10.0.0.3")).isPositive();
        assertThat(throttle.lockedFor("10.0.0.5")).isPositive();

        for (int i = 0; i < 10_000; i++) throttle.failed("10.1." + (i / 250) + "." + (i % 250), "test");
        assertThat(throttle.tracked()).isEqualTo(3);
    }

    @Test
    void anIpv6SourceIsItsSlash64AndAnIpv4SourceItsAddressOrItsSlash24() {
        FailedAuthenticationThrottle throttle = new FailedAuthenticationThrottle(clock,
                new FailedAuthenticationThrottle.Properties(2, null, null, null, null, null));
        assertThat(defaults.ipv6Prefix()).isEqualTo(64);
        assertThat(defaults.ipv4Prefix()).isEqualTo(32);
        throttle.failed("2001:db8:0:1::1", "test");
        throttle.failed("2001:db8:0:1:ffff:ffff:ffff:fffe", "test"); // another address of the same /64
        assertThat(throttle.lockedFor("2001:db8:0:1::99")).isPositive();
        assertThat(throttle.lockedFor("2001:db8:0:2::1")).as("the next /64").isZero();
        assertThat(throttle.source("2001:db8:0:1:abcd::1")).isEqualTo("2001:db8:0:1:0:0:0:0/64");
        throttle.failed("198.51.100.10", "test");
        throttle.failed("198.51.100.12", "test");
        assertThat(throttle.lockedFor("198.51.100.10")).as("IPv4 counts per address by default").isZero();
        assertThat(throttle.source("198.51.100.10")).isEqualTo("198.51.100.10");
        assertThat(throttle.source("not-an-address")).isEqualTo("not-an-address");

        FailedAuthenticationThrottle per24 = new FailedAuthenticationThrottle(clock,
                new FailedAuthenticationThrottle.Properties(2, null, null, null, 24, 128));
        per24.failed("198.51.100.10", "test");
        per24.failed("198.51.100.12", "test");
        assertThat(per24.lockedFor("198.51.100.250")).isPositive();
        assertThat(per24.lockedFor("198.51.101.10")).isZero();
        assertThat(per24.source("198.51.100.10")).isEqualTo("198.51.100.0/24");
        per24.failed("2001:db8::1", "test");
        per24.failed("2001:db8::2", "test");
        assertThat(per24.lockedFor("2001:db8::3")).as("IPv6 per address with prefix 128").isZero();
    }
}
