package io.durablecheckout.activities;

import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;

/**
 * Entry point of the activity services (inventory, payments, receipts, provider simulator). The orchestrator's
 * application imports it; each service only meets the orchestrator through the event store.
 */
@Configuration
@ComponentScan
public class ActivitiesConfiguration {
}
