package io.durablecheckout.orchestrator.axon.saga;

import org.axonframework.eventhandling.Segment;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.UnableToClaimTokenException;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;
import java.util.List;
import java.util.Optional;

/**
 * The token store, telling the saga store's cache when this node's claims on the saga processor's segments change
 * (claimed, released, split, merged, reset or deleted): from then on another node may have handled, and written, the
 * sagas of a segment, so what this node remembers of them is forgotten ({@link ChangedOnlySagaStore#forgetCached}).
 * Every call goes to the JDBC token store unchanged. docs/decisions.md §79.
 */
public final class ClaimWatchingTokenStore implements TokenStore {

    private final TokenStore delegate;
    private final String processor;
    private final Runnable claimsChanged;

    public ClaimWatchingTokenStore(TokenStore delegate, String processor, Runnable claimsChanged) {
        this.delegate = delegate;
        this.processor = processor;
        this.claimsChanged = claimsChanged;
    }

    /** The durable store underneath, for the start-up wiring check. */
    public TokenStore delegate() {
        return delegate;
    }

    private void changed(String processorName) {
        if (processor.equals(processorName)) {
            claimsChanged.run();
        }
    }

    @Override
    public void initializeTokenSegments(@Nonnull String processorName, int segmentCount) {
        changed(processorName);
        delegate.initializeTokenSegments(processorName, segmentCount);
    }

    @Override
    public void initializeTokenSegments(@Nonnull String processorName, int segmentCount,
                                        @Nullable TrackingToken initialToken) {
        changed(processorName);
        delegate.initializeTokenSegments(processorName, segmentCount, initialToken);
    }

    @Override
    public void storeToken(@Nullable TrackingToken token, @Nonnull String processorName, int segment) {
        delegate.storeToken(token, processorName, segment);
    }

    @Override
    public TrackingToken fetchToken(@Nonnull String processorName, int segment) {
        changed(processorName); // a claim (or a re-claim after this node lost it unnoticed)
        return delegate.fetchToken(processorName, segment);
    }

    @Override
    public TrackingToken fetchToken(@Nonnull String processorName, @Nonnull Segment segment) {
        changed(processorName);
        return delegate.fetchToken(processorName, segment);
    }

    @Override
    public void extendClaim(@Nonnull String processorName, int segment) throws UnableToClaimTokenException {
        delegate.extendClaim(processorName, segment);
    }

    @Override
    public void releaseClaim(@Nonnull String processorName, int segment) {
        changed(processorName);
        delegate.releaseClaim(processorName, segment);
    }

    @Override
    public void initializeSegment(@Nullable TrackingToken token, @Nonnull String processorName, int segment) {
        changed(processorName);
        delegate.initializeSegment(token, processorName, segment);
    }

    @Override
    public void deleteToken(@Nonnull String processorName, int segment) {
        changed(processorName);
        delegate.deleteToken(processorName, segment);
    }

    @Override
    public boolean requiresExplicitSegmentInitialization() {
        return delegate.requiresExplicitSegmentInitialization();
    }

    @Override
    public int[] fetchSegments(@Nonnull String processorName) {
        return delegate.fetchSegments(processorName);
    }

    @Override
    public List<Segment> fetchAvailableSegments(@Nonnull String processorName) {
        return delegate.fetchAvailableSegments(processorName);
    }

    @Override
    public Optional<String> retrieveStorageIdentifier() {
        return delegate.retrieveStorageIdentifier();
    }
}
