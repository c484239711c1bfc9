-- An operator's request to split or merge a processor's segment on a live database (decision 137): recorded by the
-- admin API, carried out by the node holding the segment's claim (cluster.SegmentRequestRunner).
CREATE TABLE segment_requests (
    id              BIGSERIAL PRIMARY KEY,
    processor       VARCHAR(255) NOT NULL,
    segment         INTEGER      NOT NULL,
    action          VARCHAR(8)   NOT NULL CHECK (action IN ('split', 'merge')),
    state           VARCHAR(8)   NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
    segments_before INTEGER[]    NOT NULL,
    segments_after  INTEGER[],
    requested_by    VARCHAR(255) NOT NULL,
    reason          TEXT         NOT NULL,
    requested_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    attempts        INTEGER      NOT NULL DEFAULT 0,
    outcome         TEXT,
    finished_at     TIMESTAMPTZ,
    finished_by     VARCHAR(255)
);

-- one change at a time per processor: each is judged against the segments it was asked on
CREATE UNIQUE INDEX segment_requests_one_pending ON segment_requests (processor) WHERE state = 'pending';
