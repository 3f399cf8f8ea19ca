package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/taskd/taskd/internal/testsite"
)

// TestBrowserFiles, in Chromium: a file attached on a task's page through
// the file input is listed with its size, downloads as an attachment that
// is not rendered, and is deleted after its confirmation; nothing
// overflows at 390 px.
func TestBrowserFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := testsite.New(t)
	pid := s.APIID("action=post_project&title=Launch")
	tid := s.APIID("action=post_task&id_project=" + pid + "&title=Press+kit")
	dir := t.TempDir()
	file := filepath.Join(dir, "press <release>.html")
	if err := os.WriteFile(file, []byte("<h1>Launch</h1><script>document.title='pwned'</script>"), 0o644); err != nil {
		t.Fatal(err)
	}

	c := newChrome(t)
	acct := s.Base + "/a/" + s.Slug
	c.run(chromedp.Navigate(s.Base+"/login"), chromedp.WaitVisible(chromedp.CSS("#email")),
		chromedp.SendKeys(chromedp.CSS("#email"), testsite.OwnerEmail), chromedp.SendKeys(chromedp.CSS("#password"), testsite.Password),
		chromedp.Click(chromedp.CSS(`button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)))

	c.run(chromedp.Navigate(acct+"/project/"+pid+"/"+tid+"/"), chromedp.WaitVisible(chromedp.CSS("#task-files")))
	c.see("no-files", "No files attached to the task.")
	c.run(chromedp.SetUploadFiles(chromedp.CSS("#task-files"), []string{file}),
		chromedp.Click(`//button[text()="Attach"]`), chromedp.WaitVisible(`//ul[contains(@class,"files")]//a`))
	c.see("attached", "press <release>.html", "54 bytes", "Olga Owner")

	// The link downloads the file as an attachment, never as a page.
	type head struct {
		Status      int    `json:"status"`
		Disposition string `json:"disposition"`
		Type        string `json:"type"`
		Sniff       string `json:"sniff"`
		Body        string `json:"body"`
	}
	res, err := chromedp.Run(c.ctx, chromedp.Evaluate[head](`(async () => {
		const a = document.querySelector('ul.files a');
		const r = await fetch(a.href);
		return {status: r.status, disposition: r.headers.get('content-disposition'), type: r.headers.get('content-type'),
			sniff: r.headers.get('x-content-type-options'), body: await r.text()};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 200 || !strings.HasPrefix(res.Disposition, "attachment;") || res.Type != "application/octet-stream" || res.Sniff != "nosniff" ||
		!strings.Contains(res.Body, "<h1>Launch</h1>") {
		t.Fatalf("the download: %+v", res)
	}

	// Deleting asks first.
	c.run(chromedp.Click(`//ul[contains(@class,"files")]//summary`), chromedp.WaitVisible(`//button[text()="Delete file"]`))
	c.see("confirm-delete", "goes for good")
	c.run(chromedp.Click(`//button[text()="Delete file"]`), chromedp.WaitVisible(`//p[contains(text(),"No files attached to the task.")]`))
	c.see("deleted", "No files attached to the task.")
}
