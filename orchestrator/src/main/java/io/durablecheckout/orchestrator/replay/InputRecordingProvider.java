package io.durablecheckout.orchestrator.replay;

import org.axonframework.messaging.Message;
import org.axonframework.messaging.correlation.CorrelationDataProvider;

import javax.annotation.Nonnull;
import java.util.Map;

/**
 * Puts the recorded input of a Checkout decision (and its deadline operations) into the metadata of the events it
 * causes. Axon asks correlation providers for every message created while handling a command or a deadline, which
 * is exactly the set of events one input produces.
 */
final class InputRecordingProvider implements CorrelationDataProvider {

    @Nonnull
    @Override
    public Map<String, ?> correlationDataFor(@Nonnull Message<?> message) {
        return RecordedInputs.metadataFor(message);
    }
}
