package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.TenantId;

import java.io.IOException;
import java.util.function.Function;

/**
 * The single-value records of {@code api.values} (ids, SKUs, fencing tokens) in JSON.
 * <ul>
 *   <li>{@link #readers()}: read from either shape, the plain value ({@code "co_1"}, {@code 3}: what the product
 *   prints) or the stored object ({@code {"value": "co_1"}}: what the event store holds, unchanged), so a bundle
 *   written in either dialect loads;</li>
 *   <li>{@link #scalars()}: written as the plain value, for everything the product prints ({@link ProductJson}).</li>
 * </ul>
 */
public final class ValueObjects {

    private ValueObjects() {
    }

    public static SimpleModule readers() {
        SimpleModule module = new SimpleModule("value-objects-read-either-shape");
        module.addDeserializer(CheckoutId.class, text(CheckoutId.class, CheckoutId::new));
        module.addDeserializer(TenantId.class, text(TenantId.class, TenantId::new));
        module.addDeserializer(OperationId.class, text(OperationId.class, OperationId::new));
        module.addDeserializer(Sku.class, text(Sku.class, Sku::new));
        module.addDeserializer(FencingToken.class, new Either<>(FencingToken.class, in -> new FencingToken(
                in.currentToken() == JsonToken.VALUE_NUMBER_INT ? longValue(in) : Long.parseLong(text(in)))));
        return module;
    }

    public static SimpleModule scalars() {
        SimpleModule module = new SimpleModule("value-objects-as-plain-values");
        module.addSerializer(CheckoutId.class, string(CheckoutId::value));
        module.addSerializer(TenantId.class, string(TenantId::value));
        module.addSerializer(OperationId.class, string(OperationId::value));
        module.addSerializer(Sku.class, string(Sku::value));
        module.addSerializer(FencingToken.class, new JsonSerializer<>() {
            @Override
            public void serialize(FencingToken token, JsonGenerator out, SerializerProvider provider) throws IOException {
                out.writeNumber(token.value());
            }
        });
        return module;
    }

    private static <T> Either<T> text(Class<T> type, Function<String, T> constructor) {
        return new Either<>(type, in -> constructor.apply(text(in)));
    }

    private static String text(JsonParser in) {
        try {
            return in.getValueAsString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long longValue(JsonParser in) {
        try {
            return in.getLongValue();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static <T> JsonSerializer<T> string(Function<T, String> value) {
        return new JsonSerializer<>() {
            @Override
            public void serialize(T object, JsonGenerator out, SerializerProvider provider) throws IOException {
                out.writeString(value.apply(object));
            }
        };
    }

    /**
     * A plain value, or an object with exactly the one field {@code value}; anything else is refused. Read from the
     * token stream (no tree): every stored event holds several of these.
     */
    private static final class Either<T> extends JsonDeserializer<T> {
        private final Class<T> type;
        private final Function<JsonParser, T> constructor;

        Either(Class<T> type, Function<JsonParser, T> constructor) {
            this.type = type;
            this.constructor = constructor;
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
            if (!in.currentToken().isScalarValue() || in.currentToken() == JsonToken.VALUE_NULL) {
                return context.reportInputMismatch(type, "%s: expected a value, got %s", type.getSimpleName(),
                        in.currentToken());
            }
            try {
                return constructor.apply(in);
            } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
                return context.reportInputMismatch(type, "%s: %s", type.getSimpleName(), e.getMessage());
            }
        }
    }
}
