package io.durablecheckout.orchestrator.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.Locale;

/**
 * First in the API's security chain, before the key is even looked up: a body larger than
 * {@code checkout.http.max-body-size} is refused with 413 from its declared length without reading it, and a body
 * that turns out larger while it is read (chunked) stops being read at the limit (413 too); a body that is not
 * JSON is 415. Nothing downstream ever holds more than the limit.
 */
public class RequestLimitsFilter extends OncePerRequestFilter {

    private final long maxBodyBytes;

    public RequestLimitsFilter(long maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    /** Thrown by the wrapped stream past the limit; {@link ApiExceptionHandler} answers 413. */
    public static class BodyTooLargeException extends IOException {
        public BodyTooLargeException(long max) {
            super("The request body is larger than " + max + " bytes");
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long declared = request.getContentLengthLong();
        boolean chunked = request.getHeader("Transfer-Encoding") != null;
        if (declared > maxBodyBytes) {
            response.setHeader("Connection", "close"); // do not drain a huge body to keep the connection
            Problems.write(response, HttpStatus.CONTENT_TOO_LARGE, "payload-too-large", "Request too large",
                    "The request body is limited to " + maxBodyBytes + " bytes", request.getRequestURI());
            return;
        }
        if ((declared > 0 || chunked) && !isJson(request.getContentType())) {
            Problems.write(response, HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type",
                    "Unsupported media type", "Send the body as application/json", request.getRequestURI());
            return;
        }
        chain.doFilter(declared == 0 && !chunked ? request : new Limited(request, maxBodyBytes), response);
    }

    static boolean isJson(String contentType) {
        if (contentType == null) return false;
        String type = contentType.toLowerCase(Locale.ROOT);
        int semicolon = type.indexOf(';');
        if (semicolon >= 0) type = type.substring(0, semicolon);
        type = type.trim();
        return type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
    }

    private static final class Limited extends HttpServletRequestWrapper {
        private final long max;
        private ServletInputStream stream;

        Limited(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                ServletInputStream in = super.getInputStream();
                stream = new ServletInputStream() {
                    long total;

                    @Override
                    public int read() throws IOException {
                        int b = in.read();
                        if (b >= 0 && ++total > max) throw new BodyTooLargeException(max);
                        return b;
                    }

                    @Override
                    public int read(byte[] buffer, int offset, int length) throws IOException {
                        int n = in.read(buffer, offset, (int) Math.min(length, max + 1 - total));
                        if (n > 0 && (total += n) > max) throw new BodyTooLargeException(max);
                        return n;
                    }

                    @Override
                    public boolean isFinished() {
                        return in.isFinished();
                    }

                    @Override
                    public boolean isReady() {
                        return in.isReady();
                    }

                    @Override
                    public void setReadListener(ReadListener listener) {
                        in.setReadListener(listener);
                    }
                };
            }
            return stream;
        }

        @Override
        public java.io.BufferedReader getReader() throws IOException {
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(),
                    getCharacterEncoding() == null ? "UTF-8" : getCharacterEncoding()));
        }
    }
}
