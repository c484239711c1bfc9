package io.durablecheckout.api.values;

/** Strictly increasing per operation for each new lease owner; resources reject anything older than the newest seen. */
public record FencingToken(long value) implements Comparable<FencingToken> {
    public FencingToken {
        if (value < 1) throw new IllegalArgumentException("fencing token must be >= 1, was " + value);
    }

    public static FencingToken first() {
        return new FencingToken(1);
    }

    public FencingToken next() {
        return new FencingToken(value + 1);
    }

    public boolean isOlderThan(FencingToken other) {
        return value < other.value;
    }

    @Override
    public int compareTo(FencingToken o) {
        return Long.compare(value, o.value);
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
