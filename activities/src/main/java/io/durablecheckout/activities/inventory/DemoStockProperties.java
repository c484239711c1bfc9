package io.durablecheckout.activities.inventory;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The demo's stock, {@code checkout.demo.*} (the demo's keys are the orchestrator's, same prefix).
 *
 * @param skuCount    SKUs {@code SKU-0001}… seeded for tenant {@code demo} (default 1000)
 * @param stockPerSku units of each (default 1,000,000)
 */
@ConfigurationProperties("checkout.demo")
public record DemoStockProperties(Integer skuCount, Long stockPerSku) {

    public DemoStockProperties {
        skuCount = skuCount != null ? skuCount : 1000;
        stockPerSku = stockPerSku != null ? stockPerSku : 1_000_000L;
    }
}
