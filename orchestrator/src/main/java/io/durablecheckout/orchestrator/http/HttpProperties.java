package io.durablecheckout.orchestrator.http;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * {@code checkout.http.*}.
 *
 * @param maxBodySize a larger request body is refused with 413 before it is read (default 64 KB)
 */
@ConfigurationProperties("checkout.http")
public record HttpProperties(DataSize maxBodySize) {

    public HttpProperties {
        maxBodySize = maxBodySize != null ? maxBodySize : DataSize.ofKilobytes(64);
    }
}
