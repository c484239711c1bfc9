package io.durablecheckout.activities.inventory;

import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.TenantId;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/** Seeding and reading stock, for operators, the demo seeder and tests. Never used by the workflow itself. */
@Component
public class InventoryAdmin {

    private static final String INSERT_STOCK = "INSERT INTO stock (tenant_id, sku, initial_quantity, available)"
            + " VALUES (:tenant, :sku, :qty, :qty) ON CONFLICT (tenant_id, sku) DO NOTHING";

    private final NamedParameterJdbcTemplate jdbc;

    public InventoryAdmin(DataSource dataSource) {
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
    }

    /**
     * Creates the SKU with {@code quantity} units if the tenant has no row for it yet; an existing row is left as it
     * is (so seeding is idempotent and never rewrites stock that reservations hold).
     *
     * @return true if the row was created
     */
    public boolean seed(TenantId tenantId, String sku, long quantity) {
        if (quantity < 0) throw new IllegalArgumentException("quantity must be >= 0");
        return jdbc.update(INSERT_STOCK, params(tenantId, sku, quantity)) == 1;
    }

    /**
     * Batch form of {@link #seed}; returns how many rows were created. One statement (the driver rewrites batches
     * into multi-row inserts, which report no per-row counts).
     */
    public int seedAll(TenantId tenantId, Collection<String> skus, long quantity) {
        if (quantity < 0) throw new IllegalArgumentException("quantity must be >= 0");
        return jdbc.update("INSERT INTO stock (tenant_id, sku, initial_quantity, available)"
                        + " SELECT :tenant, s.sku, :qty, :qty FROM unnest(CAST(:skus AS text[])) AS s(sku)"
                        + " ON CONFLICT (tenant_id, sku) DO NOTHING",
                new MapSqlParameterSource("tenant", tenantId.value()).addValue("qty", quantity)
                        .addValue("skus", skus.toArray(String[]::new)));
    }

    /** @throws NoSuchElementException if the tenant has no stock row for the SKU */
    public StockLevel level(TenantId tenantId, Sku sku) {
        return find(tenantId, sku).orElseThrow(() -> new NoSuchElementException("no stock for " + tenantId + "/" + sku));
    }

    public Optional<StockLevel> find(TenantId tenantId, Sku sku) {
        return jdbc.query("SELECT initial_quantity, available, reserved, sold FROM stock WHERE tenant_id = :tenant AND sku = :sku",
                params(tenantId, sku.value(), 0),
                (rs, n) -> new StockLevel(tenantId, sku, rs.getLong("initial_quantity"), rs.getLong("available"),
                        rs.getLong("reserved"), rs.getLong("sold"))).stream().findFirst();
    }

    /** The subset of {@code skus} the tenant has no stock row for, in the order asked, without duplicates. */
    public List<Sku> unknownSkus(TenantId tenantId, Collection<Sku> skus) {
        if (skus.isEmpty()) return List.of();
        LinkedHashSet<String> asked = new LinkedHashSet<>();
        skus.forEach(sku -> asked.add(sku.value()));
        List<String> known = jdbc.queryForList("SELECT sku FROM stock WHERE tenant_id = :tenant AND sku IN (:skus)",
                Map.of("tenant", tenantId.value(), "skus", List.copyOf(asked)), String.class);
        asked.removeAll(known);
        return asked.stream().map(Sku::new).toList();
    }

    /** Stock rows that break conservation; always empty (it is also a table constraint), for checks and tests. */
    public long unconservedRows() {
        Long count = jdbc.queryForObject("SELECT count(*) FROM stock WHERE available + reserved + sold <> initial_quantity",
                Map.of(), Long.class);
        return count == null ? 0 : count;
    }

    private static MapSqlParameterSource params(TenantId tenantId, String sku, long quantity) {
        return new MapSqlParameterSource().addValue("tenant", tenantId.value()).addValue("sku", sku).addValue("qty", quantity);
    }
}
