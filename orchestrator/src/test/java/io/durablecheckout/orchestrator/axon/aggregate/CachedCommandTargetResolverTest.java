package io.durablecheckout.orchestrator.axon.aggregate;

import io.durablecheckout.api.command.CheckoutCommand;
import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.modelling.command.AnnotationCommandTargetResolver;
import org.axonframework.modelling.command.VersionedAggregateIdentifier;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cached resolver must name the same aggregate and expected version as Axon's, for every command of the API
 * (found from the sealed interface, so a new command is covered without editing this test), with and without a
 * version, and on a second call (answered from what the first one found).
 */
class CachedCommandTargetResolverTest {

    private final CachedCommandTargetResolver cached = new CachedCommandTargetResolver();
    private final AnnotationCommandTargetResolver axon = AnnotationCommandTargetResolver.builder().build();

    @Test
    void everyCommandOfTheApiResolvesAsAxonResolvesIt() throws Exception {
        Class<?>[] commands = CheckoutCommand.class.getPermittedSubclasses();
        assertThat(commands).hasSizeGreaterThanOrEqualTo(7);
        int versioned = 0;
        for (Class<?> type : commands) {
            for (Long version : new Long[]{null, 41L}) {
                Object command = sample(type, "co_" + type.getSimpleName(), version);
                VersionedAggregateIdentifier expected = axon.resolveTarget(GenericCommandMessage.asCommandMessage(command));
                for (int call = 0; call < 2; call++) {
                    VersionedAggregateIdentifier actual =
                            cached.resolveTarget(GenericCommandMessage.asCommandMessage(command));
                    assertThat(actual.getIdentifier()).as(type.getSimpleName()).isEqualTo(expected.getIdentifier())
                            .isEqualTo("co_" + type.getSimpleName());
                    assertThat(actual.getVersion()).as(type.getSimpleName() + " version")
                            .isEqualTo(expected.getVersion());
                }
                if (expected.getVersion() != null) {
                    versioned++;
                }
            }
        }
        // resolve, retry, cancel, refund, settle a hold
        assertThat(versioned).as("the operator commands carry the version they expect").isEqualTo(5);
    }

    @Test
    void aCommandWithoutItsTargetIsRefusedAsAxonRefusesIt() {
        record NoTarget(String id) {
        }
        assertThatThrownBy(() -> cached.resolveTarget(GenericCommandMessage.asCommandMessage(new NoTarget("x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("@TargetAggregateIdentifier");
        Object nullTarget = sample(CheckoutCommand.class.getPermittedSubclasses()[0], null, null);
        assertThatThrownBy(() -> cached.resolveTarget(GenericCommandMessage.asCommandMessage(nullTarget)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-null value");
    }

    /** The record with its checkout id and any {@code Long} component set; every other component null (or false). */
    private static Object sample(Class<?> type, String checkoutId, Long version) {
        RecordComponent[] components = type.getRecordComponents();
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            Class<?> c = components[i].getType();
            values[i] = c == CheckoutId.class ? (checkoutId == null ? null : new CheckoutId(checkoutId))
                    : c == Long.class ? version
                    : c == boolean.class ? Boolean.FALSE
                    : null;
        }
        try {
            Constructor<?> canonical = type.getDeclaredConstructor(
                    Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
            return canonical.newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build a sample of " + type, e);
        }
    }
}
