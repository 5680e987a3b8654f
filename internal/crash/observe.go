package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// observer reads the server's state without changing it: the console's
// JSON API (GET /_sqsq/api/…, which lists in-flight and delayed messages
// too, where ReceiveMessage would change them), and ListQueueTags.
type observer struct {
	base   string
	http   *http.Client
	sqs    *sqs.Client
	tagged func(queue string) []string // the tag keys the ledger tracks on a queue
}

// snapshot reads every queue of the default namespace with its attributes,
// tracked tags and messages.
func (o *observer) snapshot(ctx context.Context) (*snapshot, error) {
	var list struct {
		Queues []struct {
			Name string `json:"name"`
		} `json:"queues"`
	}
	if err := o.get(ctx, "/_sqsq/api/queues?attributes=false", &list); err != nil {
		return nil, err
	}
	s := &snapshot{queues: map[string]*queueView{}}
	for _, q := range list.Queues {
		var one struct {
			URL        string            `json:"url"`
			Attributes map[string]string `json:"attributes"`
		}
		path := "/_sqsq/api/queues/" + url.PathEscape(q.Name)
		if err := o.get(ctx, path, &one); err != nil {
			return nil, err
		}
		v := &queueView{attrs: one.Attributes}
		if v.attrs == nil {
			v.attrs = map[string]string{}
		}
		cursor := ""
		for {
			var page struct {
				Messages []struct {
					MessageID      string `json:"messageId"`
					Body           string `json:"body"`
					GroupID        string `json:"groupId"`
					SequenceNumber string `json:"sequenceNumber"`
				} `json:"messages"`
				NextCursor string `json:"nextCursor"`
			}
			if err := o.get(ctx, path+"/messages?limit=1000&cursor="+url.QueryEscape(cursor), &page); err != nil {
				return nil, err
			}
			for _, m := range page.Messages {
				v.msgs = append(v.msgs, peeked{id: m.MessageID, body: m.Body, group: m.GroupID, seq: m.SequenceNumber})
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if keys := o.tagged(q.Name); len(keys) > 0 {
			out, err := o.sqs.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(one.URL)})
			if err != nil {
				return nil, fmt.Errorf("ListQueueTags %s: %w", q.Name, err)
			}
			for _, k := range keys {
				v.attrs["tag:"+k] = out.Tags[k]
			}
		}
		s.queues[q.Name] = v
	}
	return s, nil
}

// get decodes the JSON answer of GET path, which must be 200.
func (o *observer) get(ctx context.Context, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := o.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: HTTP %d: %s", path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return json.NewDecoder(resp.Body).Decode(into)
}
