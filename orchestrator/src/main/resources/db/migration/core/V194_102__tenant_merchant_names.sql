-- What a tenant's receipts say about the merchant (admin API, PUT /api/v1/admin/tenants/{id}/merchant): the merchant
-- name shown in the messages and the display name on their From. Null: the tenant's name.
ALTER TABLE tenants ADD COLUMN merchant_name TEXT, ADD COLUMN sender_display_name TEXT;
