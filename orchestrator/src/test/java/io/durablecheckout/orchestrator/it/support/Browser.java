package io.durablecheckout.orchestrator.it.support;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * Debian's headless Chromium driven through Debian's chromedriver (packages chromium and chromium-driver, installed
 * by .ci/run): nothing is downloaded, each browser gets a fresh profile directory.
 */
public final class Browser {

    public static final String CHROMIUM = System.getProperty("chromium.binary", "/usr/bin/chromium");
    public static final String CHROMEDRIVER = System.getProperty("chromedriver.binary", "/usr/bin/chromedriver");

    private Browser() {
    }

    public static boolean available() {
        return new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute();
    }

    public static ChromeDriver start() {
        try {
            Path profile = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "chromium-profile-");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(CHROMIUM);
            options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1400,1000", "--user-data-dir=" + profile);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().implicitlyWait(Duration.ZERO);
            return driver;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Saves a screenshot to docs/screenshots/ (the README shows them), full window. */
    public static void screenshot(ChromeDriver driver, String name) {
        File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        // the committed screenshots change only on request (-Dscreenshots.update=true); a plain run leaves them be
        Path dir = Boolean.getBoolean("screenshots.update") ? Path.of("..", "docs", "screenshots")
                : Path.of("target", "screenshots");
        try {
            Files.createDirectories(dir);
            Files.copy(shot.toPath(), dir.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
