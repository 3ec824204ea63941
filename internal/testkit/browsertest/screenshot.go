package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// ScreenshotDir is where page tests save screenshots: GPUSCHED_SCREENSHOTS
// (or GPUSCHED_SCREENSHOT_DIR) when set, else gpusched-screenshots under the
// OS temp directory (never inside the repository).
func ScreenshotDir() string {
	for _, env := range []string{"GPUSCHED_SCREENSHOTS", "GPUSCHED_SCREENSHOT_DIR"} {
		if d := os.Getenv(env); d != "" {
			return d
		}
	}
	return filepath.Join(os.TempDir(), "gpusched-screenshots")
}

// Screenshot saves a full-page PNG (quality 100 is PNG; less is JPEG) of tab as name.png in ScreenshotDir; a
// failure to save is logged, not fatal.
func Screenshot(t testing.TB, tab context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	dir := ScreenshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", p)
}
