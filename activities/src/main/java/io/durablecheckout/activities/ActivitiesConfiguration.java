package io.durablecheckout.activities;

import io.durablecheckout.activities.inventory.DemoStockProperties;
import io.durablecheckout.activities.payments.PaymentsProperties;
import io.durablecheckout.activities.simulator.SimulatorProperties;
import org.springframework.boot.autoconfigure.AutoConfigurationExcludeFilter;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;

/**
 * Entry point of the activity services (inventory, payments, receipts, provider simulator). The orchestrator's
 * application imports it; each service only meets the orchestrator through the event store.
 * <p>
 * Auto-configuration classes are excluded from this scan: {@link ActivitiesAutoConfiguration} must stay an
 * auto-configuration so its {@code @ConditionalOnMissingBean} defaults are evaluated after every user bean.
 */
@Configuration
@ComponentScan(excludeFilters = @ComponentScan.Filter(type = FilterType.CUSTOM,
        classes = AutoConfigurationExcludeFilter.class))
@EnableConfigurationProperties({PaymentsProperties.class, SimulatorProperties.class, DemoStockProperties.class})
public class ActivitiesConfiguration {
}
