package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// The console answers with both clocks, behind the server's guard: the
// page, the queues with their URLs as clients reach them, the messages with
// their state, the page's own (same-origin) sends, and, with the virtual
// clock only, its advance buttons, which move the clock the admin endpoint
// reads. A foreign page's send is refused.
func TestConsole(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"real", "virtual"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			virtual := mode == "virtual"
			s := start(t, "-clock", mode)
			c := testHTTPClient(t, "")
			ctx := context.Background()
			q, err := s.client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi")}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}); err != nil {
				t.Fatal(err)
			}

			get := func(path string, v any) {
				t.Helper()
				code, body := browserRequest{"GET", path, "", nil, ""}.send(t, s, c)
				if code != http.StatusOK {
					t.Fatalf("GET %s: %d %s", path, code, body)
				}
				if v != nil {
					if err := json.Unmarshal([]byte(body), v); err != nil {
						t.Fatalf("GET %s: %v", path, err)
					}
				}
			}
			var clk struct{ Virtual bool }
			get("/_sqsq/api/clock", &clk)
			if clk.Virtual != virtual {
				t.Errorf("the console says virtual=%v", clk.Virtual)
			}
			var list struct {
				Queues []struct {
					Name, URL string
					Counts    struct{ InFlight int }
				}
			}
			get("/_sqsq/api/queues", &list)
			if len(list.Queues) != 1 || list.Queues[0].URL != *q.QueueUrl {
				t.Errorf("queues %+v, want orders at %s", list.Queues, *q.QueueUrl)
			}
			type page struct {
				Messages []struct {
					State      string
					TimeLeftMs int64
				}
			}
			var p page
			get("/_sqsq/api/queues/orders/messages", &p)
			if len(p.Messages) != 1 || p.Messages[0].State != "inflight" || p.Messages[0].TimeLeftMs <= 0 {
				t.Errorf("messages %+v, want one in flight", p.Messages)
			}
			code, body := browserRequest{"GET", "/_sqsq/ui/", "", nil, ""}.send(t, s, c)
			if code != http.StatusOK || !strings.Contains(body, `id="queues-table"`) {
				t.Errorf("GET /_sqsq/ui/: %d", code)
			}

			// The page's own fetch passes; another site's is refused.
			send := `{"body":"from the console"}`
			code, body = browserRequest{"POST", "/_sqsq/api/queues/orders/messages", "",
				map[string]string{"Origin": s.url, "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"}, send}.send(t, s, c)
			if code != http.StatusOK {
				t.Errorf("same-origin send: %d %s", code, body)
			}
			code, _ = browserRequest{"POST", "/_sqsq/api/queues/orders/messages", "",
				map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, send}.send(t, s, c)
			if code != http.StatusForbidden {
				t.Errorf("foreign send: %d, want 403", code)
			}
			p = page{}
			get("/_sqsq/api/queues/orders/messages?state=available", &p)
			if len(p.Messages) != 1 {
				t.Errorf("available %+v, want only the same-origin send", p.Messages)
			}

			// Unknown paths: the console's under /_sqsq/api/, the admin
			// fallback elsewhere.
			code, body = browserRequest{"GET", "/_sqsq/api/nope", "", nil, ""}.send(t, s, c)
			if code != http.StatusNotFound || !strings.Contains(body, `"code":"UnknownOperationException"`) {
				t.Errorf("GET /_sqsq/api/nope: %d %s", code, body)
			}
			code, body = browserRequest{"GET", "/_sqsq/nope", "", nil, ""}.send(t, s, c)
			if code != http.StatusNotFound || !strings.Contains(body, "no such endpoint") {
				t.Errorf("GET /_sqsq/nope: %d %s", code, body)
			}

			code, body = browserRequest{"POST", "/_sqsq/api/clock/advance", "", map[string]string{"Origin": s.url}, `{"duration":"30s"}`}.send(t, s, c)
			if !virtual {
				if code != http.StatusNotFound {
					t.Errorf("advance with the real clock: %d %s, want 404", code, body)
				}
				return
			}
			if code != http.StatusOK {
				t.Fatalf("advance: %d %s", code, body)
			}
			var adv, admin clockState
			if err := json.Unmarshal([]byte(body), &adv); err != nil {
				t.Fatal(err)
			}
			if s.admin(t, "GET", "/_sqsq/clock", "", &admin); !admin.Now.Equal(adv.Now) {
				t.Errorf("the console advanced to %v, the admin endpoint reads %v", adv.Now, admin.Now)
			}
			p = page{}
			get("/_sqsq/api/queues/orders/messages?state=inflight", &p)
			if len(p.Messages) != 0 {
				t.Errorf("in flight after 30 s: %+v, want none", p.Messages)
			}
			// The admin endpoint's limit holds for the console's buttons.
			code, body = browserRequest{"POST", "/_sqsq/api/clock/advance?d=2562047h", "", nil, ""}.send(t, s, c)
			if code != http.StatusBadRequest || !strings.Contains(body, "2262") {
				t.Errorf("advance past 2262: %d %s", code, body)
			}
		})
	}
}

// /_sqsq/ui, without its slash, leads to the page.
func TestConsoleRedirect(t *testing.T) {
	t.Parallel()
	s := start(t)
	c := testHTTPClient(t, "")
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(s.url + "/_sqsq/ui")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 3 || resp.Header.Get("Location") != "/_sqsq/ui/" {
		t.Errorf("GET /_sqsq/ui: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
