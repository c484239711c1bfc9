-- A tenant's own request rate (per node); NULL means checkout.rate-limit.requests-per-second.
ALTER TABLE tenants ADD COLUMN requests_per_second INTEGER CHECK (requests_per_second > 0);
