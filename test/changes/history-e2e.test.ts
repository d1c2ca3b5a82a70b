// Issue 32, item 1, "done means": a sandbox journey whose ETA slips (the simulator's SIMETA
// scenario, behind a DCSA CARRIERS_CONFIG entry, read by the real engine at known simulated days)
// and its change history through the API: the POD ETA moving with before/after/observed_at/source,
// the filters and paging, and another account's 404.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ENGINES } from '../helpers/db.ts';
import { useScenarioRig } from '../helpers/scenario-rig.ts';

for (const engine of ENGINES) {
  describe(`change history of a journey whose ETA slips [${engine}]`, () => {
    const rig = useScenarioRig(engine);

    test('GET …/changes shows each slip of the POD ETA, filtered and paged, for its account only', async () => {
      const s = await rig.track('SIMETA0001', 'bill_of_lading');
      await s.until(['created']);
      const sid = await s.shipmentId();
      const etas = [(await s.shipment()).data.attributes.pod_eta_at as string];
      const observed: number[] = [];
      // Revisions are published on days 3.8 and 6.8, each a later arrival.
      for (const day of [4, 7]) {
        await rig.advanceTo(day);
        await s.refresh();
        observed.push(Date.now());
        etas.push((await s.shipment()).data.attributes.pod_eta_at);
      }
      const get = (path: string, key = s.key) => rig.t.request('GET', path, { key });

      const all = await get(`/v2/shipments/${sid}/changes?page[size]=100`);
      assert.equal(all.status, 200, all.text);
      const eta = all.body.data.filter((c: any) => c.attributes.attribute === 'pod_eta_at');
      assert.equal(eta.length, 2, all.text);
      // Newest first: the second slip, then the first; each one's before is the value it replaced.
      for (const [i, c] of eta.entries()) {
        const [before, after] = [etas[1 - i]!, etas[2 - i]!];
        assert.equal(c.type, 'change');
        assert.equal(Date.parse(c.attributes.before), Date.parse(before));
        assert.equal(Date.parse(c.attributes.after), Date.parse(after));
        assert.ok(Date.parse(c.attributes.after) > Date.parse(c.attributes.before), 'the ETA slipped');
        assert.equal(c.attributes.source, 'shipping_line');
        assert.equal(c.attributes.event, 'shipment.changed');
        assert.deepEqual(c.relationships.shipment.data, { type: 'shipment', id: sid });
        assert.equal(c.links, undefined);
      }
      const [late, early] = eta.map((c: any) => Date.parse(c.attributes.observed_at));
      assert.ok(early < late && late <= observed[1]! + 1000 && early <= observed[0]! + 1000);
      assert.equal(all.body.meta.total, all.body.data.length);

      // filter[attribute], filter[observed_at] and paging.
      const only = await get(`/v2/shipments/${sid}/changes?filter[attribute]=pod_eta_at&page[size]=1`);
      assert.equal(only.status, 200, only.text);
      assert.equal(only.body.meta.total, 2);
      assert.deepEqual(only.body.data, [eta[0]]);
      assert.match(only.body.links.next, /page%5Bnumber%5D=2|page\[number\]=2/);
      const second = await get(
        `/v2/shipments/${sid}/changes?filter[attribute]=pod_eta_at&page[size]=1&page[number]=2`,
      );
      assert.deepEqual(second.body.data, [eta[1]]);
      const between = new Date(Math.floor((early + late) / 2)).toISOString();
      const since = await get(
        `/v2/shipments/${sid}/changes?filter[attribute]=pod_eta_at&filter[observed_at][start]=${between}`,
      );
      assert.deepEqual(since.body.data, [eta[0]]);
      const until = await get(
        `/v2/shipments/${sid}/changes?filter[attribute]=pod_eta_at&filter[observed_at][end]=${between}`,
      );
      assert.deepEqual(until.body.data, [eta[1]]);

      // The container's own history holds only its changes.
      const [c] = await s.containers();
      const box = await get(`/v2/containers/${c.id}/changes?page[size]=100`);
      assert.equal(box.status, 200, box.text);
      for (const ch of box.body.data)
        assert.deepEqual(ch.relationships.container.data, { type: 'container', id: c.id });

      // Bad filters are 400s naming the parameter.
      for (const [qs, parameter] of [
        ['filter[attribute]=nope', 'filter[attribute]'],
        ['filter[observed_at][start]=yesterday', 'filter[observed_at][start]'],
        [
          'filter[observed_at][start]=2030-01-02&filter[observed_at][end]=2030-01-01',
          'filter[observed_at][start]',
        ],
        ['page[size]=0', 'page[size]'],
      ]) {
        const bad = await get(`/v2/shipments/${sid}/changes?${qs}`);
        assert.equal(bad.status, 400, `${qs}: ${bad.text}`);
        assert.equal(bad.body.errors[0].source.parameter, parameter);
        assert.equal(bad.body.errors[0].code, 'invalid_parameter');
      }

      // Another account's shipment and container are not found.
      const other = await rig.t.newAccount('other');
      for (const path of [`/v2/shipments/${sid}/changes`, `/v2/containers/${c.id}/changes`]) {
        const res = await get(path, other.key);
        assert.equal(res.status, 404, res.text);
      }

      // The MCP tool gives agents the same: the POD estimate over time, oldest move first.
      const mine = await mcp(rig.t.url, s.key);
      const theirs = await mcp(rig.t.url, other.key);
      try {
        for (const args of [{ shipment_id: sid }, { container_id: c.id }]) {
          const r = await call(mine, 'get_eta_history', args);
          assert.ok(!r.isError, r.text);
          assert.deepEqual(
            r.data.pod_eta_moves.map((m: any) => [Date.parse(m.before), Date.parse(m.after)]),
            [
              [Date.parse(etas[0]!), Date.parse(etas[1]!)],
              [Date.parse(etas[1]!), Date.parse(etas[2]!)],
            ],
          );
          for (const m of r.data.pod_eta_moves) assert.ok(m.shift_hours > 0, 'a later estimate');
          assert.match(r.text, /POD estimate: .*moved 2 times, \+[\d.]+ h in all\./);
          assert.equal(r.data.pod_original_eta_at, etas[0]);
        }
        const none = await call(mine, 'get_eta_history', {});
        assert.equal(none.isError, true);
        const hidden = await call(theirs, 'get_eta_history', { shipment_id: sid });
        assert.equal(hidden.isError, true);
        assert.match(hidden.text, /No shipment/);
      } finally {
        await mine.close();
        await theirs.close();
      }
    });
  });
}

async function mcp(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  const headers = { authorization: `Bearer ${key}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: Array<{ type: string; text: string }>;
    structuredContent?: any;
  };
  return { ...r, text: r.content.map((c) => c.text).join('\n'), data: r.structuredContent };
}
