package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IsoInstantDeserializerTest {

    private final ObjectMapper strict = AxonJson.strictEventObjectMapper();

    record Stamped(Instant at) {
    }

    @Test
    void everyInstantTheSerializerWritesReadsBackEqualThroughTheHandParser() throws Exception {
        SplittableRandom random = new SplittableRandom(57); // fixed seed: the same cases every run
        for (int i = 0; i < 20_000; i++) {
            long second = random.nextLong(-62_135_596_800L, 253_402_300_799L); // years 0001 to 9999
            int nanos = switch (i % 4) { // the serializer prints 0, 3, 6 or 9 fraction digits
                case 0 -> 0;
                case 1 -> random.nextInt(1_000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1_000;
                default -> random.nextInt(1_000_000_000);
            };
            Instant instant = Instant.ofEpochSecond(second, nanos);
            String json = strict.writeValueAsString(new Stamped(instant));
            assertThat(IsoInstantDeserializer.parse(instant.toString())).as(json).isEqualTo(instant);
            assertThat(strict.readValue(json, Stamped.class).at()).as(json).isEqualTo(instant);
        }
    }

    @Test
    void otherFormsGoToTheModulesReaderAndMeanWhatTheyMeantBefore() throws Exception {
        // not the serializer's form: the hand parser declines, the JSR-310 reader decides as before
        for (String text : List.of("2026-12-01T21:11:52+01:00", "2026-12-01T21:11:52.1234567890Z",
                "+12026-12-01T21:11:52Z", "2026-12-01T21:11:52.Z", "2026-12-01 21:11:52Z", "2026-13-01T21:11:52Z",
                "2026-02-30T21:11:52Z", "2026-12-01T24:00:00Z", "2026-12-01T21:60:52Z", "1764623512")) {
            assertThat(IsoInstantDeserializer.parse(text)).as(text).isNull();
        }
        assertThat(strict.readValue("{\"at\":\"2026-12-01T21:11:52+01:00\"}", Stamped.class).at())
                .isEqualTo(Instant.parse("2026-12-01T20:11:52Z"));
        assertThat(strict.readValue("{\"at\":1764623512.5}", Stamped.class).at())
                .isEqualTo(Instant.ofEpochSecond(1_764_623_512L, 500_000_000));
        assertThatThrownBy(() -> strict.readValue("{\"at\":\"2026-02-30T21:11:52Z\"}", Stamped.class))
                .isInstanceOf(InvalidFormatException.class);
    }

    @Test
    void theAxonMappersUseTheHandParser() throws Exception {
        for (ObjectMapper mapper : List.of(AxonJson.objectMapper(), strict)) {
            var context = ((DefaultDeserializationContext) mapper.getDeserializationContext())
                    .createDummyInstance(mapper.getDeserializationConfig());
            assertThat(context.findRootValueDeserializer(mapper.constructType(Instant.class)))
                    .isInstanceOf(IsoInstantDeserializer.class);
        }
    }
}
