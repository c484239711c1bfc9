package io.durablecheckout.benchmarks;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BenchOptionsTest {

    @Test
    void defaultsAreTheStandardWorkload() {
        BenchOptions o = BenchOptions.parse(new String[0]);
        assertThat(o.jdbcUrl()).isNull();
        assertThat(o.n()).isEqualTo(5000);
        assertThat(o.warmup()).isEqualTo(500);
        assertThat(o.concurrency()).containsExactly(8, 32, 64);
        assertThat(o.modes()).containsExactly("tuned", "baseline");
        assertThat(o.transports()).containsExactly("inprocess", "http");
        assertThat(o.matrix()).isTrue();
        assertThat(o.recovery()).isFalse();
        assertThat(o.jar()).isNull();
        assertThat(o.clusterNodes()).isEmpty();
    }

    @Test
    void hotSkusDrawEveryItemFromTheFirstFewSkus() {
        assertThat(BenchOptions.parse(new String[0]).hotSkus()).as("the standard workload").isZero();
        assertThat(BenchOptions.parse(new String[]{"--hot-skus=10"}).hotSkus()).isEqualTo(10);
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--hot-skus=0"}))
                .hasMessageContaining("must be positive");
        Workload standard = new Workload(42, "t");
        Workload hot = standard.hot(10);
        java.util.Set<String> skus = new java.util.TreeSet<>();
        for (int i = 0; i < 200; i++) {
            hot.checkout(i).request().items().forEach(item -> skus.add(item.sku()));
            assertThat(hot.checkout(i).idempotencyKey()).isEqualTo(standard.checkout(i).idempotencyKey());
        }
        assertThat(skus).hasSize(10).allMatch(sku -> sku.compareTo("SKU-0010") <= 0);
        assertThat(standard.hot(0)).isSameAs(standard);
        assertThat(standard.hot(1).checkout(7).request().items()).hasSize(1);
    }

    @Test
    void readsTheOverloadRunsOptions() {
        BenchOptions defaults = BenchOptions.parse(new String[0]);
        assertThat(defaults.overload()).isFalse();
        assertThat(defaults.overloadSeconds()).isEqualTo(60);
        assertThat(defaults.overloadClients()).isEqualTo(6);
        assertThat(defaults.overloadRate()).isEqualTo(5.0);
        assertThat(defaults.overloadBaseline()).isEqualTo(50);
        BenchOptions o = BenchOptions.parse(new String[]{"--overload", "--overload-seconds=20", "--overload-clients=4",
                "--overload-rate=7.5", "--overload-baseline=25"});
        assertThat(o.overload()).isTrue();
        assertThat(o.overloadSeconds()).isEqualTo(20);
        assertThat(o.overloadClients()).isEqualTo(4);
        assertThat(o.overloadRate()).isEqualTo(7.5);
        assertThat(o.overloadBaseline()).isEqualTo(25);
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--overload-seconds=0"}))
                .hasMessageContaining("must be positive");
    }

    @Test
    void readsValuesFlagsListsAndRepeatedOptions() {
        BenchOptions o = BenchOptions.parse(new String[]{"--n=300", "--warmup=50", "--concurrency=8, 32",
                "--modes=TUNED", "--transports=http", "--skip-matrix", "--skip-ceiling", "--recovery",
                "--jar=/tmp/app.jar", "--app-jvm-option=-Xmx256m", "--app-jvm-option=-XX:+UseSerialGC",
                "--app-property=checkout.processing.mode=baseline", "--lag-wait=5s", "--wait-quiet-max=2m",
                "--cluster=1,3", "--seed=9007199254740993", "--burst-factor=1.5", "--jdbc-url="});
        assertThat(o.n()).isEqualTo(300);
        assertThat(o.warmup()).isEqualTo(50);
        assertThat(o.concurrency()).containsExactly(8, 32);
        assertThat(o.modes()).containsExactly("tuned");
        assertThat(o.transports()).containsExactly("http");
        assertThat(o.matrix()).isFalse();
        assertThat(o.skipCeiling()).isTrue();
        assertThat(o.recovery()).isTrue();
        assertThat(o.jar()).isEqualTo(Path.of("/tmp/app.jar"));
        assertThat(o.appJvmOptions()).containsExactly("-Xmx256m", "-XX:+UseSerialGC");
        assertThat(o.appProperties()).containsExactly("checkout.processing.mode=baseline");
        assertThat(o.lagWait()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.quietWaitMax()).isEqualTo(Duration.ofMinutes(2));
        assertThat(o.clusterNodes()).isEqualTo(List.of(1, 3));
        assertThat(o.seed()).isEqualTo(9007199254740993L); // 2^53 + 1: not a double
        assertThat(o.burstFactor()).isEqualTo(1.5);
        assertThat(o.jdbcUrl()).isNull();
    }

    @Test
    void refusesWhatItCannotReadAndSaysWhich() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--n=lots"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--n: lots is not a whole number");
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--n=0"}))
                .hasMessageContaining("--n must be positive");
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--concurrency=8,many"}))
                .hasMessageContaining("--concurrency: many is not a whole number");
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--modes=fast"}))
                .hasMessageContaining("fast is not one of");
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--lag-wait=soon"}))
                .hasMessageContaining("--lag-wait: soon is not a duration");
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--no-such-option"}))
                .hasMessageContaining("unknown option --no-such-option");
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"n=5"}))
                .hasMessageContaining("unexpected argument n=5");
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--jar"}))
                .hasMessageContaining("--jar needs a value");
    }
}
