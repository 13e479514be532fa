import test from 'ava';
import { parseDaemonArguments } from '../../cli/quarryd/args.js';
import { schedulerTarget } from '../../plugins/scheduler/node/node-client.js';
import { nodeTlsMaterial } from '../../plugins/scheduler/node/node-credentials.js';

test('cluster flags: role, repeatable scheduler addresses, node listener and mTLS files', (t) => {
  const args = parseDaemonArguments([
    '--scheduler-address', 'grpc://10.0.0.5:50052', '--scheduler-address', '10.0.0.6:50052',
    '--node-advertise-address', 'executor-7', '--node-mtls-ca-certificate-file', 'ca.pem',
    '--node-mtls-certificate-file', 'node.pem', '--node-mtls-key-file', 'node.key',
  ]);
  t.false(args.manifestGiven, 'an executor needs no manifest');
  t.deepEqual(args.cluster, {
    role: 'executor',
    schedulerAddresses: ['grpc://10.0.0.5:50052', '10.0.0.6:50052'],
    nodeBindAddress: undefined,
    nodeAdvertiseAddress: 'executor-7',
    mtlsCaCertificateFile: 'ca.pem',
    mtlsCertificateFile: 'node.pem',
    mtlsKeyFile: 'node.key',
    allowInsecureConnections: false,
  });
  const scheduler = parseDaemonArguments(['pod', '--role', 'scheduler', '--node-bind-address', '0.0.0.0:50052', '--allow-insecure-connections']);
  t.like(scheduler.cluster, { role: 'scheduler', nodeBindAddress: '0.0.0.0:50052', allowInsecureConnections: true });
  t.true(scheduler.manifestGiven);
  t.is(parseDaemonArguments([]).cluster.role, undefined, 'a single node by default');
  t.throws(() => parseDaemonArguments(['--role', 'worker']), { message: '--role "worker" is not one of scheduler, executor' });
  t.throws(() => parseDaemonArguments(['--role', 'scheduler', '--scheduler-address', 'x:1']), { message: /--scheduler-address is for executors/ });
});

test('scheduler addresses: URLs or host:port; mTLS needs all three files unless plaintext is allowed', (t) => {
  t.is(schedulerTarget('grpc://10.0.0.5:50052'), '10.0.0.5:50052');
  t.is(schedulerTarget('grpc+tls://scheduler-1:50052/'), 'scheduler-1:50052');
  t.is(schedulerTarget('127.0.0.1:9'), '127.0.0.1:9');
  t.throws(() => schedulerTarget('grpc://scheduler-1'), { code: 'CLUSTER_CONFIG_INVALID', message: /expected host:port or a URL such as grpc:\/\/scheduler-1:50052/ });
  const base = parseDaemonArguments(['--role', 'executor']).cluster;
  t.throws(() => nodeTlsMaterial(base), { code: 'CLUSTER_CONFIG_INVALID', message: /or --allow-insecure-connections for plaintext/ });
  t.is(nodeTlsMaterial({ ...base, allowInsecureConnections: true }), undefined);
  t.throws(() => nodeTlsMaterial({ ...base, mtlsCaCertificateFile: 'ca.pem' }), { message: /missing --node-mtls-certificate-file, --node-mtls-key-file/ });
  t.throws(() => nodeTlsMaterial({ ...base, mtlsCaCertificateFile: '/nonexistent/ca.pem', mtlsCertificateFile: 'a', mtlsKeyFile: 'b' }), { message: /--node-mtls-ca-certificate-file \/nonexistent\/ca.pem cannot be read/ });
});
