package io.durablecheckout.activities.inventory;

import io.durablecheckout.api.values.TenantId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;

/**
 * Seeds stock for tenant {@code demo}: SKUs {@code SKU-0001}… ({@code checkout.demo.sku-count}, default 1000), each
 * with {@code checkout.demo.stock-per-sku} units (default 1,000,000). Idempotent: existing rows are kept, so a
 * restart never resets stock that checkouts hold. Off with {@code checkout.demo.enabled=false}.
 */
@Component
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.inventory.enabled", "checkout.demo.enabled"},
        havingValue = "true",
        matchIfMissing = true)
public class DemoStockSeeder implements ApplicationRunner {

    public static final TenantId DEMO_TENANT = new TenantId("demo");
    private static final Logger log = LoggerFactory.getLogger(DemoStockSeeder.class);

    private final InventoryAdmin admin;
    private final int skuCount;
    private final long stockPerSku;

    @Autowired
    public DemoStockSeeder(InventoryAdmin admin, DemoStockProperties properties) {
        this(admin, properties.skuCount(), properties.stockPerSku());
    }

    public DemoStockSeeder(InventoryAdmin admin, int skuCount, long stockPerSku) {
        this.admin = admin;
        this.skuCount = skuCount;
        this.stockPerSku = stockPerSku;
    }

    @Override
    public void run(ApplicationArguments args) {
        int created = seed();
        log.info("Demo stock: {} of {} SKUs created for tenant '{}' ({} units each)", created, skuCount,
                DEMO_TENANT, stockPerSku);
    }

    public int seed() {
        List<String> skus = new ArrayList<>(skuCount);
        for (int i = 1; i <= skuCount; i++) {
            skus.add(demoSku(i));
        }
        return admin.seedAll(DEMO_TENANT, skus, stockPerSku);
    }

    public static String demoSku(int n) {
        return String.format("SKU-%04d", n);
    }
}
