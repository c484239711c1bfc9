package io.durablecheckout.orchestrator.cluster;

import org.axonframework.eventhandling.Segment;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.UnableToClaimTokenException;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The token store, telling {@code onClaim} the processor's name whenever this node claims one of its segments.
 * Axon's processors claim a segment they do not hold with {@code fetchToken} (a held one is only extended), so a
 * successful fetch is the moment a node may start acting on a segment another node had meanwhile: what it cached
 * for that processor must go (decision 53). The listener runs before the processor handles any event of the claim.
 */
public final class ClaimObservingTokenStore implements TokenStore {

    private final TokenStore delegate;
    private final Consumer<String> onClaim;

    public ClaimObservingTokenStore(TokenStore delegate, Consumer<String> onClaim) {
        this.delegate = delegate;
        this.onClaim = onClaim;
    }

    public TokenStore delegate() {
        return delegate;
    }

    @Override
    public TrackingToken fetchToken(String processorName, int segment) throws UnableToClaimTokenException {
        TrackingToken token = delegate.fetchToken(processorName, segment);
        onClaim.accept(processorName);
        return token;
    }

    @Override
    public TrackingToken fetchToken(String processorName, Segment segment) throws UnableToClaimTokenException {
        TrackingToken token = delegate.fetchToken(processorName, segment);
        onClaim.accept(processorName);
        return token;
    }

    @Override
    public void initializeTokenSegments(String processorName, int segmentCount) {
        delegate.initializeTokenSegments(processorName, segmentCount);
    }

    @Override
    public void initializeTokenSegments(String processorName, int segmentCount, TrackingToken initialToken) {
        delegate.initializeTokenSegments(processorName, segmentCount, initialToken);
    }

    @Override
    public void storeToken(TrackingToken token, String processorName, int segment) {
        delegate.storeToken(token, processorName, segment);
    }

    @Override
    public void extendClaim(String processorName, int segment) {
        delegate.extendClaim(processorName, segment);
    }

    @Override
    public void releaseClaim(String processorName, int segment) {
        delegate.releaseClaim(processorName, segment);
    }

    @Override
    public void initializeSegment(TrackingToken token, String processorName, int segment) {
        delegate.initializeSegment(token, processorName, segment);
    }

    @Override
    public void deleteToken(String processorName, int segment) {
        delegate.deleteToken(processorName, segment);
    }

    @Override
    public boolean requiresExplicitSegmentInitialization() {
        return delegate.requiresExplicitSegmentInitialization();
    }

    @Override
    public int[] fetchSegments(String processorName) {
        return delegate.fetchSegments(processorName);
    }

    @Override
    public List<Segment> fetchAvailableSegments(String processorName) {
        return delegate.fetchAvailableSegments(processorName);
    }

    @Override
    public Optional<String> retrieveStorageIdentifier() {
        return delegate.retrieveStorageIdentifier();
    }
}
