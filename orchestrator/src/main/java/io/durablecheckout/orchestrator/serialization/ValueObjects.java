package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleDeserializers;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.module.SimpleSerializers;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;

/**
 * The single-value records of the published language (ids, SKUs, fencing tokens: records of {@link #VALUES} with one
 * {@code String} or {@code long} component) in JSON. Found by their shape, so this package knows none of them.
 * <ul>
 *   <li>{@link #readers()}: read from either shape, the plain value ({@code "co_1"}, {@code 3}: what the product
 *   prints) or the stored object ({@code {"value": "co_1"}}: what the event store holds, unchanged), so a bundle
 *   written in either dialect loads;</li>
 *   <li>{@link #scalars()}: written as the plain value, for everything the product prints ({@link ProductJson}).</li>
 * </ul>
 */
public final class ValueObjects {

    /** The package of the value objects (api.values). */
    static final String VALUES = "io.durablecheckout.api.values";

    private ValueObjects() {
    }

    public static SimpleModule readers() {
        SimpleModule module = new SimpleModule("value-objects-read-either-shape");
        module.setDeserializers(new SimpleDeserializers() {
            @Override
            public JsonDeserializer<?> findBeanDeserializer(JavaType type, DeserializationConfig config,
                                                            BeanDescription description) {
                RecordComponent value = valueComponent(type.getRawClass());
                return value == null ? null : new Either<>(type.getRawClass(), value);
            }
        });
        return module;
    }

    public static SimpleModule scalars() {
        SimpleModule module = new SimpleModule("value-objects-as-plain-values");
        module.setSerializers(new SimpleSerializers() {
            @Override
            public JsonSerializer<?> findSerializer(SerializationConfig config, JavaType type,
                                                    BeanDescription description) {
                RecordComponent value = valueComponent(type.getRawClass());
                return value == null ? null : new Plain(value.getAccessor());
            }
        });
        return module;
    }

    /** The one component of a value object of {@link #VALUES}, or null for any other type. */
    static RecordComponent valueComponent(Class<?> type) {
        if (!type.isRecord() || !VALUES.equals(type.getPackageName())) {
            return null;
        }
        RecordComponent[] components = type.getRecordComponents();
        if (components.length != 1 || !components[0].getName().equals("value")) {
            return null;
        }
        Class<?> t = components[0].getType();
        return t == String.class || t == long.class ? components[0] : null;
    }

    private static final class Plain extends JsonSerializer<Object> {
        private final Method accessor;

        Plain(Method accessor) {
            this.accessor = accessor;
        }

        @Override
        public void serialize(Object object, JsonGenerator out, SerializerProvider provider) throws IOException {
            Object value;
            try {
                value = accessor.invoke(object);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IOException("cannot read " + accessor, e);
            }
            if (value instanceof Long n) {
                out.writeNumber(n);
            } else {
                out.writeString((String) value);
            }
        }
    }

    /**
     * A plain value, or an object with exactly the one field {@code value}; anything else is refused. Read from the
     * token stream (no tree): every stored event holds several of these.
     */
    private static final class Either<T> extends JsonDeserializer<T> {
        private final Class<T> type;
        private final boolean number;
        private final Constructor<T> constructor;

        Either(Class<T> type, RecordComponent value) {
            this.type = type;
            this.number = value.getType() == long.class;
            try {
                this.constructor = type.getDeclaredConstructor(value.getType());
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException(type + " has no canonical constructor", e);
            }
        }

        @Override
        public T deserialize(JsonParser in, DeserializationContext context) throws IOException {
            if (in.currentToken() == JsonToken.START_OBJECT) {
                if (in.nextToken() != JsonToken.FIELD_NAME || !"value".equals(in.currentName())) {
                    return context.reportInputMismatch(type, "%s: expected a value or {\"value\": ...}",
                            type.getSimpleName());
                }
                in.nextToken();
                T value = scalar(in, context);
                if (in.nextToken() != JsonToken.END_OBJECT) {
                    return context.reportInputMismatch(type, "%s: only the field \"value\" is expected",
                            type.getSimpleName());
                }
                return value;
            }
            return scalar(in, context);
        }

        private T scalar(JsonParser in, DeserializationContext context) throws IOException {
            JsonToken token = in.currentToken();
            if (token == null || !token.isScalarValue() || token == JsonToken.VALUE_NULL) {
                return context.reportInputMismatch(type, "%s: expected a value, got %s", type.getSimpleName(), token);
            }
            try {
                Object argument = !number ? in.getValueAsString()
                        : token == JsonToken.VALUE_NUMBER_INT ? in.getLongValue() : Long.parseLong(in.getText());
                return constructor.newInstance(argument);
            } catch (InvocationTargetException e) {
                return context.reportInputMismatch(type, "%s: %s", type.getSimpleName(), e.getCause().getMessage());
            } catch (NumberFormatException | ReflectiveOperationException e) {
                return context.reportInputMismatch(type, "%s: %s", type.getSimpleName(), e.getMessage());
            }
        }
    }
}
