package io.durablecheckout.benchmarks;

import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.service.CheckoutRequest;
import io.durablecheckout.activities.privacy.DataKeyStore;
import io.durablecheckout.activities.privacy.FileDataKeyStore;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.service.CheckoutIds;

import java.nio.file.Path;
import java.security.SecureRandom;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The checkouts of the standard workload: tenant {@code demo}, 1 to 3 distinct line items drawn from the 1,000 SKUs
 * the demo seeder stocks amply, an amount in minor units, payment token {@code tok_approve} (approved at once), and a
 * unique Idempotency-Key. The i-th checkout of a phase is a function of (seed, i) only, so every configuration
 * submits the same sequence. {@link #hot} draws the items from the first few SKUs only (docs/benchmarks.md, hot SKUs).
 */
final class Workload {

    static final TenantId TENANT = new TenantId("demo");
    static final int SKUS = 1000;

    /**
     * The applications' own id key (docs/decisions.md 95), from the data key store every configuration shares: the
     * harness names each checkout's id before submitting it, to watch for its completion.
     */
    private static final CheckoutIds IDS = checkoutIds();

    private final long seed;
    private final String keyPrefix;
    private final int skus;

    /**
     * @param keyPrefix makes the Idempotency-Keys unique per phase (warm-up, counted run, …) of one database
     */
    Workload(long seed, String keyPrefix) {
        this(seed, keyPrefix, SKUS);
    }

    private Workload(long seed, String keyPrefix, int skus) {
        this.seed = seed;
        this.keyPrefix = keyPrefix;
        this.skus = skus;
    }

    /** The same checkouts with every item drawn from SKU-0001 to SKU-{@code hotSkus} instead (0: all 1,000). */
    Workload hot(int hotSkus) {
        return hotSkus <= 0 ? this : new Workload(seed, keyPrefix, Math.min(hotSkus, SKUS));
    }

    record Checkout(String idempotencyKey, String checkoutId, CheckoutRequest request) {
    }

    Checkout checkout(int i) {
        SplittableRandom random = new SplittableRandom(seed * 1_000_003L + i);
        int lines = 1 + random.nextInt(Math.min(3, skus));
        Set<Integer> skus = new LinkedHashSet<>();
        while (skus.size() < lines) {
            skus.add(1 + random.nextInt(this.skus));
        }
        List<CheckoutRequest.Item> items = new ArrayList<>();
        long amount = 0;
        for (int sku : skus) {
            int quantity = 1 + random.nextInt(3);
            items.add(new CheckoutRequest.Item(String.format("SKU-%04d", sku), quantity));
            amount += quantity * (199L + sku * 10L); // a price per SKU, in cents
        }
        String key = keyPrefix + "-" + i;
        return new Checkout(key, IDS.idFor(TENANT, key).value(),
                new CheckoutRequest(items, new CheckoutRequest.Amount(amount, "EUR"), "tok_approve",
                        "customer-" + i + "@example.com"));
    }

    private static CheckoutIds checkoutIds() {
        String option = "--" + DataKeyStore.PROPERTY + "=";
        Path store = NodeProcess.DEMO_ON_EXTERNAL_DATABASE.stream().filter(a -> a.startsWith(option))
                .map(a -> Path.of(a.substring(option.length()))).findFirst().orElseThrow();
        byte[] fresh = new byte[CheckoutIds.KEY_BYTES];
        new SecureRandom().nextBytes(fresh);
        return new CheckoutIds(new FileDataKeyStore(store).create(CheckoutIds.KEY_NAME, fresh));
    }
}
