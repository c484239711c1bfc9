package io.durablecheckout.orchestrator;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The orchestrator process. It also hosts the activity services unless {@code checkout.activities.enabled=false}
 * (they meet only through the event store, so the same code runs as one process or several).
 */
@SpringBootApplication(scanBasePackages = "io.durablecheckout")
@ConfigurationPropertiesScan("io.durablecheckout")
public class CheckoutApplication {

    public static void main(String[] args) {
        SpringApplication.run(CheckoutApplication.class, args);
    }
}
