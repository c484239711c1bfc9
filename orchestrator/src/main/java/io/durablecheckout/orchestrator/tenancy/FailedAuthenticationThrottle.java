package io.durablecheckout.orchestrator.tenancy;

import io.durablecheckout.orchestrator.http.Problems;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Failed sign-ins (dashboard form) and failed bearer keys, counted per source: the request's remote address (the
 * client's only where {@code checkout.security.trusted-proxies} names the proxy in front, TrustedProxies), widened to
 * its network prefix ({@code ipv6-prefix}, default /64: one host gets a whole /64; {@code ipv4-prefix}, default /32,
 * e.g. 24 for a /24 per source). A source's window opens
 * at its first failure and lasts {@code window}; from its {@code max-failures}-th failure until the window ends, every
 * request of that source that presents credentials is refused with 429 and {@code Retry-After}, the right key too (so
 * a guesser learns nothing from a hit), and a success does not shorten it (a guesser with one valid key of its own
 * could otherwise reset its count between guesses). Each counted failure is logged at WARN with source, what failed
 * and the count, never the key or the user name typed (it may be a key); the lock is logged once, and refusals while
 * locked are not logged, so a flood writes at most {@code max-failures} + 1 lines per source and window.
 * <p>
 * Per node and in memory: N nodes allow N times the failures. At most {@code max-sources} windows are kept; beyond
 * that the expired ones go first, then the oldest, so many sources cost bounded memory (and an attacker with that
 * many addresses has that many windows anyway).
 */
@Component
public class FailedAuthenticationThrottle {

    private static final Logger log = LoggerFactory.getLogger(FailedAuthenticationThrottle.class);

    /**
     * {@code checkout.security.failed-authentication.*}.
     *
     * @param maxFailures    failures of one source within the window after which it is refused (default 20; 0: off)
     * @param window         how long a source's window lasts from its first failure (default 15 minutes)
     * @param maxSources     most sources tracked at once (default 10,000)
     * @param exemptSources  addresses never counted nor refused (default none): a monitoring probe, never a proxy
     * @param ipv4Prefix     an IPv4 source is its address's first this many bits (default 32: the address)
     * @param ipv6Prefix     an IPv6 source is its address's first this many bits (default 64: one host's usual share)
     */
    @ConfigurationProperties("checkout.security.failed-authentication")
    public record Properties(Integer maxFailures, Duration window, Integer maxSources, List<String> exemptSources,
                             Integer ipv4Prefix, Integer ipv6Prefix) {
        public Properties {
            ipv4Prefix = ipv4Prefix != null ? ipv4Prefix : 32;
            ipv6Prefix = ipv6Prefix != null ? ipv6Prefix : 64;
            if (ipv4Prefix < 8 || ipv4Prefix > 32 || ipv6Prefix < 16 || ipv6Prefix > 128) {
                throw new IllegalArgumentException("checkout.security.failed-authentication: ipv4-prefix 8 to 32 and "
                        + "ipv6-prefix 16 to 128 expected");
            }
            maxFailures = maxFailures != null ? maxFailures : 20;
            window = window != null ? window : Duration.ofMinutes(15);
            maxSources = maxSources != null ? maxSources : 10_000;
            exemptSources = exemptSources != null ? List.copyOf(exemptSources) : List.of();
            if (maxFailures < 0 || window.isNegative() || window.isZero() || maxSources < 1) {
                throw new IllegalArgumentException("checkout.security.failed-authentication: max-failures >= 0, "
                        + "window > 0 and max-sources >= 1 expected");
            }
        }
    }

    /** One source's window: opened at its first failure, immutable (replaced on every failure). */
    record Window(Instant opened, int failures) {
    }

    private final Clock clock;
    private final int maxFailures;
    private final Duration window;
    private final int maxSources;
    private final Set<String> exempt;
    private final int ipv4Prefix;
    private final int ipv6Prefix;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    public FailedAuthenticationThrottle(Clock clock, Properties properties) {
        this.clock = clock;
        this.maxFailures = properties.maxFailures();
        this.window = properties.window();
        this.maxSources = properties.maxSources();
        this.ipv4Prefix = properties.ipv4Prefix();
        this.ipv6Prefix = properties.ipv6Prefix();
        this.exempt = new HashSet<>();
        for (String source : properties.exemptSources()) {
            exempt.add(normalize(source));
        }
    }

    /** Seconds until this source may try again, or 0 when it may now. */
    public long lockedFor(String address) {
        if (maxFailures == 0 || address == null) return 0;
        Window w = windows.get(source(address));
        if (w == null || w.failures() < maxFailures) return 0;
        long millis = Duration.between(clock.instant(), w.opened().plus(window)).toMillis();
        return millis <= 0 ? 0 : (millis + 999) / 1000;
    }

    /** Counts one failure of this source and logs it; {@code what} names what failed, never the credential. */
    public void failed(String address, String what) {
        if (maxFailures == 0 || address == null || exempt.contains(address)) return;
        String source = source(address);
        Instant now = clock.instant();
        if (!windows.containsKey(source) && windows.size() >= maxSources) {
            evict(now);
        }
        Window w = windows.compute(source, (k, old) -> old == null || !now.isBefore(old.opened().plus(window))
                ? new Window(now, 1) : new Window(old.opened(), old.failures() + 1));
        if (w.failures() < maxFailures) {
            log.warn("Failed authentication from {}: {} (failure {} of {} within {})", source, what, w.failures(),
                    maxFailures, window);
        } else if (w.failures() == maxFailures) {
            log.warn("Failed authentication from {}: {} (failure {} of {} within {}); refused with 429 until {}",
                    source, what, w.failures(), maxFailures, window, w.opened().plus(window));
        }
    }

    /**
     * When the source is locked: answers 429 problem+json with Retry-After and returns true (the caller stops).
     */
    public boolean refuseIfLocked(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long seconds = lockedFor(request.getRemoteAddr());
        if (seconds == 0) return false;
        response.setHeader("Retry-After", Long.toString(seconds));
        Problems.write(response, HttpStatus.TOO_MANY_REQUESTS, "too-many-failed-authentications",
                "Too many failed authentications", "Too many failed sign-ins or API keys from this address; retry "
                        + "after " + seconds + " s", request.getRequestURI());
        return true;
    }

    int tracked() {
        return windows.size();
    }

    /** Drops the expired windows; if none was, the one opened first (the nearest to expiring). */
    private void evict(Instant now) {
        windows.entrySet().removeIf(e -> !now.isBefore(e.getValue().opened().plus(window)));
        while (windows.size() >= maxSources) {
            windows.entrySet().stream().min(Map.Entry.comparingByValue(
                            (a, b) -> a.opened().compareTo(b.opened())))
                    .ifPresent(oldest -> windows.remove(oldest.getKey(), oldest.getValue()));
        }
    }

    /**
     * The source an address counts against: an IPv4 address as it is (or its network, {@code a.b.c.0/24}, with a
     * shorter {@code ipv4-prefix}), an IPv6 address its network ({@code 2001:db8:0:1:0:0:0:0/64}); anything that is
     * not an address literal as given (never resolved).
     */
    String source(String address) {
        byte[] bytes = literal(address);
        if (bytes == null) return address;
        int prefix = bytes.length == 4 ? ipv4Prefix : ipv6Prefix;
        if (prefix == bytes.length * 8) return address;
        for (int bit = prefix; bit < bytes.length * 8; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        try {
            return InetAddress.getByAddress(bytes).getHostAddress() + "/" + prefix;
        } catch (UnknownHostException e) {
            return address; // not reached: 4 or 16 bytes
        }
    }

    /** The address's bytes if it is an IPv4 or IPv6 literal, else null; no name is ever looked up. */
    private static byte[] literal(String address) {
        if (address.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            byte[] b = new byte[4];
            String[] parts = address.split("\\.");
            for (int i = 0; i < 4; i++) {
                int v = Integer.parseInt(parts[i]);
                if (v > 255) return null;
                b[i] = (byte) v;
            }
            return b;
        }
        if (address.indexOf(':') < 0) return null;
        try {
            return InetAddress.getByName(address).getAddress(); // with a colon: parsed as a literal, never resolved
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** An IPv6 address in the full form the container reports ({@code 0:0:0:0:0:0:0:1}); anything else as given. */
    private static String normalize(String address) {
        String a = address.trim();
        if (a.indexOf(':') < 0) return a;
        try {
            return InetAddress.getByName(a).getHostAddress(); // with a colon: parsed as a literal, never resolved
        } catch (UnknownHostException e) {
            return a;
        }
    }
}
