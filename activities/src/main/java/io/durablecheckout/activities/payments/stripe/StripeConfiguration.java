package io.durablecheckout.activities.payments.stripe;

import com.stripe.StripeClient;
import io.durablecheckout.activities.ResourceMutants;
import io.durablecheckout.activities.payments.PaymentProvider;
import io.durablecheckout.activities.payments.PaymentsProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * {@code checkout.payments.provider=stripe}: the payments service calls Stripe ({@link StripePaymentProvider}) instead
 * of the generic HTTP provider. {@value #KEY_PROPERTY} is required (a start without it is refused, StartupSafetyCheck);
 * {@value #API_BASE} points the SDK elsewhere (tests: a stub). Timeouts are {@code checkout.payments.*}'s.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = StripeConfiguration.PROVIDER, havingValue = "stripe")
public class StripeConfiguration {

    public static final String PROVIDER = "checkout.payments.provider";
    public static final String KEY_PROPERTY = "checkout.payments.stripe.api-key";
    public static final String API_BASE = "checkout.payments.stripe.api-base";
    public static final String SIGNING_PROPERTY = "checkout.payments.stripe.webhook-secret";

    @Bean
    @ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.payments.enabled"},
            havingValue = "true", matchIfMissing = true)
    public PaymentProvider stripePaymentProvider(Environment env, PaymentsProperties properties, DataSource dataSource,
                                                 PlatformTransactionManager transactions,
                                                 ObjectProvider<ResourceMutants> mutants) {
        Duration connect = properties.connectTimeout() == null ? Duration.ofSeconds(1) : properties.connectTimeout();
        Duration read = properties.requestTimeout() == null ? Duration.ofSeconds(2) : properties.requestTimeout();
        StripeClient.StripeClientBuilder client = StripeClient.builder()
                .setApiKey(env.getRequiredProperty(KEY_PROPERTY))
                .setMaxNetworkRetries(0) // the workflow retries, under the same keys
                .setConnectTimeout((int) connect.toMillis())
                .setReadTimeout((int) read.toMillis());
        String base = env.getProperty(API_BASE, "");
        if (!base.isBlank()) client.setApiBase(base);
        return new StripePaymentProvider(client.build(), new JdbcTemplate(dataSource), transactions,
                mutants.getIfAvailable(() -> ResourceMutants.NONE));
    }
}
