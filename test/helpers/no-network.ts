// Preloaded (--import) into a child process that must not use the network: every outbound
// connection and DNS look-up fails at once, in the main thread and in worker threads alike
// (workers inherit the preload).
import dns from 'node:dns';
import net from 'node:net';

const refuse = () => {
  throw Object.assign(new Error('network access attempted in an offline test'), { code: 'EOFFLINE' });
};
net.Socket.prototype.connect = refuse as never;
dns.lookup = refuse as never;
globalThis.fetch = (async () => refuse()) as never;
