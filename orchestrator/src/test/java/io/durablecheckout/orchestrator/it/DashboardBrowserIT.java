package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.Browser;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard in a real headless Chromium (Debian's chromium + chromium-driver), against the shared application:
 * sign in, find a checkout in manual review, resolve it with a reason and watch it complete; stuck checkouts; a
 * tenant key is turned away; a cancel shows what it will issue before it acts. Saves the README's screenshots.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBrowserIT extends IntegrationTestBase {

    private static ChromeDriver browser;

    @BeforeAll
    static void startBrowser() {
        assertThat(Browser.available()).as("Debian's chromium and chromium-driver must be installed (see .ci/run)")
                .isTrue();
        browser = Browser.start();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    @Order(1)
    void aTenantKeyCannotOpenTheDashboard() {
        browser.manage().deleteAllCookies();
        browser.get(url("/dashboard"));
        wait(10).until(ExpectedConditions.urlContains("/login"));
        signIn("demo", HttpApi.DEMO_KEY);
        wait(10).until(ExpectedConditions.visibilityOfElementLocated(By.id("login-error")));
        assertThat(browser.getCurrentUrl()).contains("/login");
        browser.get(url("/dashboard"));
        wait(10).until(ExpectedConditions.urlContains("/login"));
        // nor can the key open the dashboard's JSON directly
        HttpApi.Response r = api.send("GET", "/dashboard/api/checkouts", HttpApi.DEMO_KEY, Map.of(), null);
        assertThat(r.status()).isIn(401, 403);
        assertThat(r.body()).doesNotContain("checkoutId");
    }

    @Test
    @Order(2)
    void anOperatorFindsAManualReviewResolvesItAndTheCaptureChecksTheResolution() {
        api.startCheckout("browser-ok-" + UUID.randomUUID(), HttpApi.checkoutBody("SKU-0101", 1, 2599, "tok_approve"));
        api.startCheckout("browser-no-" + UUID.randomUUID(), HttpApi.checkoutBody("SKU-0102", 1, 990, "tok_decline"));
        String id = manualReviewCheckout("SKU-0103", 4200);
        operatorSignedIn();

        browser.get(url("/dashboard#/checkouts"));
        new Select(wait(10).until(ExpectedConditions.elementToBeClickable(By.id("f-state"))))
                .selectByValue("manual_review");
        applyFilter();
        WebElement link = wait(15).until(ExpectedConditions.elementToBeClickable(
                By.cssSelector("tr[data-id='" + id + "'] a.open")));
        assertThat(texts(By.cssSelector("#checkouts tbody tr"))).allMatch(row -> row.contains("manual_review"));
        for (String token : List.of("tok_timeout_then_approve", "tok_provider_down", "tok_slow", "tok_approve")) {
            api.startCheckout("browser-mix-" + UUID.randomUUID(), HttpApi.checkoutBody("SKU-0107", 1, 1875, token));
        }
        browser.get(url("/dashboard#/checkouts"));
        wait(10).until(ExpectedConditions.numberOfElementsToBeMoreThan(By.cssSelector("#checkouts tbody tr"), 6));
        Browser.screenshot(browser, "list");
        browser.get(url("/dashboard#/checkouts?state=manual_review"));
        link = wait(15).until(ExpectedConditions.elementToBeClickable(By.cssSelector("tr[data-id='" + id + "'] a.open")));
        link.click();

        wait(10).until(ExpectedConditions.textToBe(By.id("detail-state"), "manual_review"));
        new Select(browser.findElement(By.id("repair-action"))).selectByValue("resolve-authorized");
        browser.findElement(By.id("repair-reference")).sendKeys("psp-ref-4711");
        browser.findElement(By.id("repair-reason")).sendKeys("provider confirmed the charge by phone");
        browser.findElement(By.id("repair-preview")).click();
        wait(10).until(ExpectedConditions.visibilityOfElementLocated(By.id("repair-preview-box")));
        assertThat(text(By.id("repair-preview-box"))).contains("ManualReviewResolvedEvent", "PaymentAuthorizedEvent",
                "PaymentCaptureRequestedEvent", id + "/capture-payment");
        browser.findElement(By.id("repair-confirm")).click();

        // the capture asks the provider, which never authorized this token (it answers PENDING): the capture is
        // refused and the checkout undone, so a mistaken resolution takes no money
        wait(30).until(ExpectedConditions.textToBe(By.id("detail-state"), "cancelled"));
        // the detail page folds the event stream; the summary row follows on its own processor
        await().atMost(Duration.ofSeconds(15)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'cancelled'", id) == 1);
        wait(10).until(ExpectedConditions.textToBePresentInElementLocated(By.id("timeline"),
                "provider confirmed the charge by phone"));
        // the provider still answers PENDING for this token: the provider's view beside the checkout's flags it
        browser.findElement(By.id("ask-provider")).click();
        wait(10).until(ExpectedConditions.visibilityOfElementLocated(By.id("mismatch")));
        wait(10).until(ExpectedConditions.textToBePresentInElementLocated(By.id("provider-says"), "PENDING"));
        // today's code makes the same decisions on this history
        browser.findElement(By.id("replay-run")).click();
        wait(30).until(ExpectedConditions.visibilityOfElementLocated(By.id("replay-verdict")));
        assertThat(text(By.id("replay-verdict"))).contains("identical");
        browser.manage().window().setSize(new Dimension(1400, 2600));
        Browser.screenshot(browser, "detail");
        browser.manage().window().setSize(new Dimension(1400, 1000));
    }

    @Test
    @Order(3)
    void aCheckoutHeldPastItsThresholdShowsUnderStuck() {
        String id = manualReviewCheckout("SKU-0104", 1500);
        String fresh = api.startCheckout("browser-fresh-" + UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0105", 1, 700, "tok_approve")).json().get("checkoutId").asText();
        operatorSignedIn();
        // the test's threshold for manual_review is 3 s (IntegrationTestBase)
        await().atMost(Duration.ofSeconds(15)).until(() -> count("SELECT count(*) FROM checkout_summary WHERE "
                + "checkout_id = ? AND state_entered_at < now() - interval '3 seconds'", id) == 1);
        browser.get(url("/dashboard#/checkouts"));
        wait(10).until(ExpectedConditions.elementToBeClickable(By.id("f-stuck"))).click();
        applyFilter();
        wait(15).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("tr[data-id='" + id + "']")));
        assertThat(text(By.cssSelector("tr[data-id='" + id + "']"))).contains("stuck", "manual_review");
        assertThat(browser.findElements(By.cssSelector("tr[data-id='" + fresh + "']"))).isEmpty();
        assertThat(Integer.parseInt(text(By.id("count-stuck")))).isGreaterThanOrEqualTo(1);
    }

    @Test
    @Order(4)
    void aCancelShowsItsPreviewBeforeItActs() {
        String id = manualReviewCheckout("SKU-0106", 3300);
        operatorSignedIn();
        long events = count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id);

        browser.get(url("/dashboard#/checkout/" + id));
        wait(10).until(ExpectedConditions.textToBe(By.id("detail-state"), "manual_review"));
        new Select(browser.findElement(By.id("repair-action"))).selectByValue("cancel");
        browser.findElement(By.id("repair-reason")).sendKeys("customer asked on the phone");
        browser.findElement(By.id("repair-preview")).click();
        wait(10).until(ExpectedConditions.visibilityOfElementLocated(By.id("repair-preview-box")));
        // blocked on the lookup with an authorization issued, no receipt: void first (docs/workflow.md)
        assertThat(text(By.id("repair-preview-box"))).contains("CheckoutCancellationRequestedEvent", "PaymentVoidRequestedEvent",
                id + "/void-payment");
        assertThat(text(By.id("preview-operations"))).isEqualTo(id + "/void-payment");
        // the preview acted on nothing
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id)).isEqualTo(events);
        assertThat(count("SELECT count(*) FROM scheduled_tasks WHERE position(convert_to(?, 'UTF8') IN task_data) > 0",
                id)).isZero();
        assertThat(count("SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'manual_review'", id))
                .isEqualTo(1);

        browser.findElement(By.id("repair-confirm")).click();
        wait(20).until(ExpectedConditions.textToBe(By.id("detail-state"), "cancelled"));
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND payloadtype LIKE "
                + "'%PaymentVoidRequestedEvent'", id)).isEqualTo(1);
    }

    @Test
    @Order(5)
    void theProcessorsPageShowsEachProcessorsSegments() {
        operatorSignedIn();
        browser.get(url("/dashboard#/processors"));
        WebElement processors = wait(10).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".processor")));
        wait(10).until(ExpectedConditions.textToBePresentInElementLocated(By.id("processors"), "checkout-summary"));
        assertThat(text(By.id("processors"))).contains("CheckoutSagaProcessor", "caught up");
        assertThat(processors).isNotNull();
        wait(10).until(ExpectedConditions.textToBePresentInElementLocated(By.id("dead-letters"), "Dead letters"));
        browser.manage().window().setSize(new Dimension(1400, 1700));
        Browser.screenshot(browser, "processors");
        browser.manage().window().setSize(new Dimension(1400, 1000));
        // the HTTP API in Swagger UI, from the dashboard's link, on the same sign-in
        browser.get(url("/dashboard#/checkouts"));
        String swagger = wait(10).until(ExpectedConditions.presenceOfElementLocated(By.id("nav-api"))).getAttribute("href");
        browser.get(swagger);
        wait(20).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".opblock")));
        assertThat(browser.findElement(By.tagName("body")).getText()).contains("/api/v1/checkouts");
        browser.get(url("/dashboard#/money"));
        wait(10).until(ExpectedConditions.presenceOfElementLocated(By.id("money-table")));
        Browser.screenshot(browser, "money-at-risk");
    }

    /**
     * The cancel trap (issue 52): a customer cancels while the payment is being reconciled, the lookups run out, manual
     * review. The page says the cancellation is pending, offers no action chosen in advance, and the operator's cancel
     * ends the checkout cancelled with the authorization voided and the stock released.
     */
    @Test
    @Order(6)
    void anOperatorsCancelEndsACheckoutTheCustomerCancelledDuringReconciliation() {
        String id = trappedCheckout();
        operatorSignedIn();

        browser.get(url("/dashboard#/checkout/" + id));
        wait(10).until(ExpectedConditions.textToBe(By.id("detail-state"), "manual_review"));
        assertThat(text(By.id("cancellation"))).contains("requested by tenant:", "customer_request", "pending");
        Select action = new Select(browser.findElement(By.id("repair-action")));
        assertThat(action.getFirstSelectedOption().getAttribute("value")).as("no action chosen in advance").isEmpty();
        assertThat(action.getOptions()).extracting(o -> o.getAttribute("value"))
                .containsExactly("", "resolve-authorized", "resolve-declined", "retry", "cancel");
        action.selectByValue("cancel");
        browser.findElement(By.id("repair-reason")).sendKeys("customer cancelled; lookups ran out");
        browser.findElement(By.id("repair-preview")).click();
        wait(10).until(ExpectedConditions.visibilityOfElementLocated(By.id("repair-preview-box")));
        assertThat(text(By.id("repair-preview-box"))).contains("PaymentVoidRequestedEvent", id + "/void-payment")
                .doesNotContain("nothing (acknowledged");
        browser.findElement(By.id("repair-confirm")).click();

        wait(30).until(ExpectedConditions.textToBe(By.id("detail-state"), "cancelled"));
        assertThat(events(id, "PaymentVoidedEvent")).isEqualTo(1);
        assertThat(events(id, "StockReleasedEvent")).isEqualTo(1);
        assertThat(events(id, "CheckoutCancelledEvent")).isEqualTo(1);
        assertThat(text(By.id("cancellation"))).contains("done: cancelled");
        assertThat(new Select(browser.findElement(By.id("repair-action"))).getOptions())
                .extracting(o -> o.getAttribute("value")).containsExactly("");
    }

    /**
     * A checkout whose customer cancelled after the authorization was requested and before the lookups ran out, now in
     * manual review. The window is the authorization's timeout plus the lookups (about 3 s here): under load a cancel
     * may land after the review (then it compensates at once, not the trap), so up to three checkouts are tried.
     */
    private String trappedCheckout() {
        for (int attempt = 1; attempt <= 3; attempt++) {
            String id = api.startCheckout("browser-trap-" + UUID.randomUUID(),
                    HttpApi.checkoutBody("SKU-0108", 1, 5100, "tok_unknown")).json().get("checkoutId").asText();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> events(id,
                    "PaymentAuthorizationRequestedEvent") == 1);
            HttpApi.Response cancel = api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY,
                    Map.of(), "{\"reason\":\"changed my mind\"}");
            assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(40)).until(() -> events(id, "ManualReviewRequiredEvent") == 1);
            if (jdbc.queryForObject("SELECT min(sequencenumber) FILTER (WHERE payloadtype LIKE "
                    + "'%CheckoutCancellationRequestedEvent') < min(sequencenumber) FILTER (WHERE payloadtype LIKE "
                    + "'%ManualReviewRequiredEvent') FROM domainevententry WHERE aggregateidentifier = ?", Boolean.class,
                    id)) {
                await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM checkout_summary "
                        + "WHERE checkout_id = ? AND state = 'manual_review'", id) == 1);
                return id;
            }
        }
        throw new AssertionError("no customer cancel landed during reconciliation in three tries");
    }

    private long events(String id, String type) {
        return count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND payloadtype LIKE ?", id,
                "%." + type);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Applies the filter form and waits until the list that was shown is gone (the page re-renders on the route). */
    private void applyFilter() {
        WebElement shown = wait(10).until(ExpectedConditions.presenceOfElementLocated(By.id("list")));
        browser.findElement(By.id("apply-filter")).click();
        wait(10).until(ExpectedConditions.stalenessOf(shown));
        wait(15).until(ExpectedConditions.or(
                ExpectedConditions.presenceOfElementLocated(By.id("checkouts")),
                ExpectedConditions.presenceOfElementLocated(By.id("empty"))));
    }

    private String manualReviewCheckout(String sku, long minor) {
        String id = api.startCheckout("browser-review-" + UUID.randomUUID(),
                HttpApi.checkoutBody(sku, 1, minor, "tok_unknown")).json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(40)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'manual_review'", id) == 1);
        return id;
    }

    private void operatorSignedIn() {
        browser.get(url("/dashboard"));
        if (browser.getCurrentUrl().contains("/login")) {
            signIn("operator", HttpApi.OPERATOR_KEY);
        }
        wait(10).until(ExpectedConditions.textToBePresentInElementLocated(By.id("who"), "operator"));
    }

    private void signIn(String account, String key) {
        WebElement user = wait(10).until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
        user.clear();
        user.sendKeys(account);
        browser.findElement(By.id("password")).sendKeys(key);
        browser.findElement(By.id("sign-in")).click();
    }

    private String url(String path) {
        return "http://localhost:" + port + path;
    }

    /**
     * An element's text, read again if the page re-rendered it between the find and the read (the dashboard refreshes
     * its views while a test reads them: a stale reference is a re-render, not a failure).
     */
    private static String text(By by) {
        return wait(10).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> d.findElement(by).getText());
    }

    private static List<String> texts(By by) {
        return wait(10).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> d.findElements(by).stream().map(WebElement::getText).toList());
    }

    private static WebDriverWait wait(int seconds) {
        return new WebDriverWait(browser, Duration.ofSeconds(seconds));
    }

}
