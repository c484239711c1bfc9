package io.durablecheckout.orchestrator.config;

import io.durablecheckout.activities.privacy.DataKeyStore;
import io.durablecheckout.orchestrator.service.CheckoutIds;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.security.SecureRandom;

/**
 * The key checkout ids are derived with ({@link CheckoutIds}, docs/decisions.md 95): kept in the data key store, beside
 * the checkouts' data keys and outside the event store. The first process to ask creates it (the store's create is
 * atomic across the processes sharing it, so every node gets the same one); it is never destroyed. The embedded demo's
 * store is {@code <data-dir>-keys}; a configured database needs {@value DataKeyStore#PROPERTY} (StartupSafetyCheck).
 */
@Configuration(proxyBeanMethods = false)
class CheckoutIdConfiguration {

    @Bean
    CheckoutIds checkoutIds(DataKeyStore keys) {
        if (keys instanceof DataKeyStore.Unconfigured) {
            // a process that neither seals nor submits (the provider simulator on its own)
            return CheckoutIds.unavailable(DataKeyStore.PROPERTY + " is not set: no key to derive checkout ids with");
        }
        byte[] fresh = new byte[CheckoutIds.KEY_BYTES];
        new SecureRandom().nextBytes(fresh);
        return new CheckoutIds(keys.create(CheckoutIds.KEY_NAME, fresh));
    }
}
