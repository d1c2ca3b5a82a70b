import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { type Tracked, trackSandbox } from '../helpers/tracked.ts';

const REFERENCE_TOOLS = [
  'search_container',
  'track_container',
  'get_container',
  'get_shipment_details',
  'get_container_transport_events',
  'get_supported_shipping_lines',
  'get_container_route',
  'list_shipments',
  'list_containers',
  'list_tracking_requests',
];

async function connect(url: string, authorization: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization } } }),
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

for (const engine of ENGINES) {
  describe(`MCP over Streamable HTTP at POST /mcp [${engine}]`, () => {
    let t: TestApp;
    let worker: Engine;
    let mine: Tracked;
    let theirs: Tracked;
    let client: Client;

    before(async () => {
      t = await startTestApp(engine, FAST_ENGINE_ENV);
      worker = startTestEngine(t.database, t.config, buildCarrierRegistry([]));
      const other = await t.newAccount('other');
      // Both accounts track the same B/L: only the caller's own shipment may ever show up.
      mine = await trackSandbox(t, worker, 'TEST-TR-SUCCEEDED');
      theirs = await trackSandbox(t, worker, 'TEST-TR-SUCCEEDED', other.key);
      client = await connect(t.url, `Bearer ${t.key}`);
    });
    after(async () => {
      await client?.close();
      await worker.stop();
      await t.close();
    });

    test('lists the reference tools with input schemas', async () => {
      const { tools } = await client.listTools();
      // The reference's tools, then this service's own.
      assert.deepEqual(tools.map((x) => x.name).sort(), [...REFERENCE_TOOLS, 'get_eta_history'].sort());
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, 'object', tool.name);
        assert.ok(tool.description && tool.description.length > 20, tool.name);
      }
      const byName = new Map(tools.map((x) => [x.name, x]));
      assert.deepEqual(byName.get('search_container')!.inputSchema.required, ['query']);
      assert.deepEqual(byName.get('get_container')!.inputSchema.required, ['id']);
      assert.ok(byName.get('track_container')!.inputSchema.properties!.numberType);
      assert.ok(byName.get('list_tracking_requests')!.inputSchema.properties!.filters);
    });

    test('search_container finds only the caller’s shipment and containers', async () => {
      const r = await call(client, 'search_container', { query: 'TEST-TR-SUCCEEDED', intent: 'find it' });
      assert.ok(!r.isError, r.text);
      // The server has GET /v2/search (issue 13), so the tool answers its ranked results: the
      // shipment by its number, and each container by its own: search_result resources whose
      // entity_type says which, as the live service answers (issue 28).
      assert.deepEqual(
        r.data.results.map((s: any) => [s.type, s.entity_type, s.id]),
        [['search_result', 'shipment', mine.shipmentId]],
      );
      assert.match(r.text, /shipment TEST-TR-SUCCEEDED/);
      assert.ok(!r.text.includes(theirs.shipmentId));
      for (const [i, id] of mine.containerIds.entries()) {
        const number = (await t.request('GET', `/v2/containers/${id}`)).body.data.attributes.number;
        const byBox = await call(client, 'search_container', { query: number, intent: `box ${i}` });
        assert.deepEqual(
          byBox.data.results.map((x: any) => [x.entity_type, x.id]),
          [['cargo', id]],
        );
      }
    });

    test('get_container, get_shipment_details, events and route on sandbox data', async () => {
      const cid = mine.containerIds[0]!;
      const c = await call(client, 'get_container', { id: cid, include: ['transport_events'] });
      assert.ok(!c.isError, c.text);
      assert.equal(c.data.container.id, cid);
      assert.equal(c.data.shipment.id, mine.shipmentId);
      assert.ok(c.data.transport_events.length >= 4);
      assert.match(c.text, /^Container [A-Z]{4}\d{7}/);

      const s = await call(client, 'get_shipment_details', { id: mine.shipmentId });
      assert.ok(!s.isError, s.text);
      assert.equal(s.data.shipment.bill_of_lading_number, 'TEST-TR-SUCCEEDED');
      assert.deepEqual(s.data.containers.map((x: any) => x.id).sort(), [...mine.containerIds].sort());
      const bare = await call(client, 'get_shipment_details', {
        id: mine.shipmentId,
        include_containers: false,
      });
      assert.equal(bare.data.containers, undefined);

      const e = await call(client, 'get_container_transport_events', { id: cid });
      assert.ok(!e.isError, e.text);
      const names = e.data.transport_events.map((x: any) => x.event);
      assert.ok(names.includes('container.transport.vessel_loaded'), names.join());
      const times = e.data.transport_events.map((x: any) => x.timestamp);
      assert.deepEqual(times, [...times].sort(), 'in time order');
      assert.ok(e.data.transport_events.some((x: any) => x.vessel_name && x.location_name));

      const route = await call(client, 'get_container_route', { id: cid });
      assert.ok(!route.isError, route.text);
      const ports = route.data.ports;
      assert.equal(ports[0].role, 'port_of_lading');
      assert.equal(ports.at(-1).role, 'port_of_discharge');
      assert.ok(route.data.legs.length >= 1);
      assert.ok(route.data.legs[0].vessel_name, 'legs carry the vessel');
      assert.ok(route.data.legs[0].atd_at, 'and the departure');
      assert.match(route.text, /POL .*\n.*POD/);
    });

    test('list tools page through the caller’s data only', async () => {
      const s = await call(client, 'list_shipments', { include_containers: true, page: 1, page_size: 10 });
      assert.deepEqual(
        s.data.shipments.map((x: any) => x.id),
        [mine.shipmentId],
      );
      assert.equal(s.data.shipments[0].containers.length, mine.containerIds.length);
      const stopped = await call(client, 'list_shipments', { tracking_stopped: true });
      assert.ok(!stopped.isError, stopped.text);

      const c = await call(client, 'list_containers', { include: ['shipment'], page_size: 50 });
      assert.deepEqual(c.data.containers.map((x: any) => x.id).sort(), [...mine.containerIds].sort());

      const tr = await call(client, 'list_tracking_requests', {
        filters: { request_type: 'bill_of_lading' },
      });
      assert.deepEqual(
        tr.data.tracking_requests.map((x: any) => x.id),
        [mine.trackingRequestId],
      );
      const none = await call(client, 'list_tracking_requests', { status: 'failed' });
      assert.equal(none.data.tracking_requests.length, 0);
      const bad = await call(client, 'list_tracking_requests', { filters: { colour: 'red' } });
      assert.equal(bad.isError, true);
    });

    test('another account’s ids are not found', async () => {
      const c = await call(client, 'get_container', { id: theirs.containerIds[0] });
      assert.equal(c.isError, true);
      assert.match(c.text, /No container/);
      const s = await call(client, 'get_shipment_details', { id: theirs.shipmentId });
      assert.equal(s.isError, true);
      const e = await call(client, 'get_container_transport_events', { id: theirs.containerIds[0] });
      assert.equal(e.isError, true);
    });

    test('track_container creates, then answers the existing request', async () => {
      const created = await call(client, 'track_container', {
        number: 'TEST-TR-FAILED',
        numberType: 'bill_of_lading',
        scac: 'test',
        refNumbers: ['PO-1'],
      });
      assert.ok(!created.isError, created.text);
      assert.equal(created.data.created, true);
      assert.equal(created.data.tracking_request.scac, 'TEST');
      assert.deepEqual(created.data.tracking_request.ref_numbers, ['PO-1']);
      const again = await call(client, 'track_container', {
        containerNumber: undefined,
        number: 'TEST-TR-SUCCEEDED',
        scac: 'TEST',
        numberType: 'bill_of_lading',
      });
      assert.ok(!again.isError, again.text);
      assert.equal(again.data.created, false);
      assert.equal(again.data.tracking_request.id, mine.trackingRequestId);
      const missing = await call(client, 'track_container', {});
      assert.equal(missing.isError, true);
    });

    test('get_supported_shipping_lines searches the catalogue', async () => {
      const all = await call(client, 'get_supported_shipping_lines', {});
      const some = await call(client, 'get_supported_shipping_lines', { search: 'test' });
      assert.ok(all.data.shipping_lines.length > some.data.shipping_lines.length);
      assert.ok(some.data.shipping_lines.some((l: any) => l.scac === 'TEST'));
    });

    test('invalid input is a tool error, not a protocol failure', async () => {
      const r = await call(client, 'get_container', {});
      assert.equal(r.isError, true);
      assert.match(r.text, /Invalid input/);
    });

    test('resources: the milestone glossary and a container', async () => {
      const { resources } = await client.listResources();
      assert.ok(resources.some((r) => r.uri === 'tracker://glossary/milestones'));
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.ok(resourceTemplates.some((r) => r.uriTemplate === 'tracker://containers/{id}'));
      const g = await client.readResource({ uri: 'tracker://glossary/milestones' });
      assert.match(String((g.contents[0] as any).text), /container\.transport\.vessel_loaded`: /);
      const c = await client.readResource({ uri: `tracker://containers/${mine.containerIds[0]}` });
      assert.equal(JSON.parse(String((c.contents[0] as any).text)).container.id, mine.containerIds[0]);
      await assert.rejects(client.readResource({ uri: `tracker://containers/${theirs.containerIds[0]}` }));
    });

    test('no key, an unknown key or a malformed header is an HTTP 401; Token works like Bearer', async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      for (const authorization of [undefined, 'Token trk_000000000000_nope', 'Basic abc']) {
        const res = await fetch(`${t.url}/mcp`, {
          method: 'POST',
          headers: { ...headers, ...(authorization ? { authorization } : {}) },
          body,
        });
        assert.equal(res.status, 401, String(authorization));
        const json = (await res.json()) as any;
        assert.equal(json.errors[0].code, 'unauthorized');
      }
      const ok = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, authorization: `Token ${t.key}` },
        body,
      });
      assert.equal(ok.status, 200);
      assert.equal(((await ok.json()) as any).result.serverInfo.name, 'tracker');
      const get = await fetch(`${t.url}/mcp`, { headers: { authorization: `Token ${t.key}` } });
      assert.equal(get.status, 405);
      await get.body?.cancel();
    });
  });
}
