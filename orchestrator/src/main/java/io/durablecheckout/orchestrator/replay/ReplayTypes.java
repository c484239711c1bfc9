package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.jsontype.PolymorphicTypeValidator;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The only types replay reads a history into (docs/security.md, "A hostile bundle"). A bundle is a file anyone can
 * hand over, and a stored or bundled type name would otherwise be loaded and instantiated by Jackson whatever class
 * it names. So every name is checked against these lists before any class is looked up:
 * <ul>
 *   <li>an event's {@code payloadType}: one of the Checkout's own events ({@link CheckoutEvent}'s permitted
 *       subclasses);</li>
 *   <li>a nested {@code @type} (an activity's result inside an event or a recorded command): one of
 *       {@link ActivityResultEvent}'s permitted subclasses, by name, before Jackson loads it;</li>
 *   <li>a recorded input's command and deadline payload: {@link RecordedInputs#COMMANDS} and
 *       {@link RecordedInputs#DEADLINE_PAYLOADS}, by simple name (already so);</li>
 *   <li>metadata: read untyped (maps, lists, strings, numbers), never into a named class.</li>
 * </ul>
 */
public final class ReplayTypes {

    /** The Checkout's events, by class name: the stream holds nothing else. */
    static final Set<String> EVENTS = names(CheckoutEvent.class.getPermittedSubclasses());

    /** The activity results, by class name: the only classes a nested {@code @type} may name. */
    static final Set<String> RESULTS = names(ActivityResultEvent.class.getPermittedSubclasses());

    /**
     * Refuses a nested type id by its name, before the class is loaded: Jackson's default for annotated polymorphic
     * types loads (and initializes) any named class first and only then checks that it is a subtype.
     */
    static final PolymorphicTypeValidator RESULT_TYPES = new PolymorphicTypeValidator.Base() {
        @Override
        public Validity validateSubClassName(MapperConfig<?> config, JavaType baseType, String subClassName) {
            return baseType.getRawClass() == ActivityResultEvent.class && RESULTS.contains(subClassName)
                    ? Validity.ALLOWED : Validity.DENIED;
        }

        @Override
        public Validity validateSubType(MapperConfig<?> config, JavaType baseType, JavaType subType) {
            return Validity.DENIED; // only reached for a name not allowed above: never load it
        }
    };

    /** A history names a type replay does not read (the bundle, or the stored row, is not a checkout's history). */
    public static final class RefusedTypeException extends IllegalArgumentException {
        RefusedTypeException(String message) {
            super(message);
        }
    }

    private ReplayTypes() {
    }

    /** Refuses an event type that is not one of the Checkout's events, without loading it. */
    static void requireEvent(String payloadType, long sequence) {
        if (!EVENTS.contains(payloadType)) {
            throw new RefusedTypeException("refused event " + sequence + ": payload type " + quoted(payloadType)
                    + " is not an event of the checkout; replay reads only the checkout's own events");
        }
    }

    /** {@code mapper} (a copy of it) reading nested result types only from {@link #RESULTS}. */
    static ObjectMapper guarded(ObjectMapper mapper) {
        return mapper.copy().setPolymorphicTypeValidator(RESULT_TYPES);
    }

    private static String quoted(String name) {
        String shown = name == null ? "null" : name.length() > 200 ? name.substring(0, 200) + "…" : name;
        return "'" + shown + "'";
    }

    private static Set<String> names(Class<?>... types) {
        return Arrays.stream(types).map(Class::getName).collect(Collectors.toUnmodifiableSet());
    }
}
