// The official JavaScript Kubernetes client (@kubernetes/client-node)
// against simcluster: list, paginate, watch, patch and custom objects.
// Usage: node client.mjs KUBECONFIG. Prints one "ok: ..." line per check
// and exits non-zero on the first failure.
import * as k8s from '@kubernetes/client-node';

function check(cond, what) {
  if (!cond) {
    console.log('FAILED: ' + what);
    process.exit(1);
  }
  console.log('ok: ' + what);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function main() {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(process.argv[2]);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const namespace = 'jsclient';
  await core.createNamespace({body: {metadata: {name: namespace}}});
  for (let i = 0; i < 5; i++) {
    await core.createNamespacedConfigMap({
      namespace,
      body: {metadata: {name: `cm-${i}`, labels: {app: 'js'}}, data: {k: String(i)}},
    });
  }
  const listed = await core.listNamespacedConfigMap({namespace, labelSelector: 'app=js'});
  const want = [0, 1, 2, 3, 4].map((i) => `cm-${i}`);
  check(same(listed.items.map((c) => c.metadata.name), want), 'list with a label selector');

  let names = [], cont, pages = 0;
  do {
    const page = await core.listNamespacedConfigMap({namespace, limit: 2, _continue: cont});
    names = names.concat(page.items.map((c) => c.metadata.name));
    cont = page.metadata._continue;
    pages++;
  } while (cont);
  check(pages === 3 && same(names, want), 'paginate with limit and continue');

  const seen = [];
  const watch = new k8s.Watch(kc);
  const done = new Promise((resolve, reject) => {
    watch.watch(`/api/v1/namespaces/${namespace}/configmaps`,
                {resourceVersion: listed.metadata.resourceVersion},
                (type, obj) => {
                  seen.push([type, obj.metadata.name, (obj.data || {}).k]);
                  if (type === 'MODIFIED') resolve();
                },
                (err) => (err ? reject(err) : resolve()))
        .then((req) => setTimeout(() => req.abort(), 5000));
  });
  await core.patchNamespacedConfigMap({name: 'cm-1', namespace, body: {data: {k: 'patched'}}},
                                      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  await done;
  check(seen.some((e) => same(e, ['MODIFIED', 'cm-1', 'patched'])), 'watch sees a merge patch');

  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const gv = {group: 'monitoring.grafana.com', version: 'v1alpha1', plural: 'grafanaagents'};
  await custom.createNamespacedCustomObject({
    ...gv, namespace,
    body: {
      apiVersion: 'monitoring.grafana.com/v1alpha1', kind: 'GrafanaAgent',
      metadata: {name: 'agent', labels: {team: 'a'}}, spec: {image: 'grafana/agent:v0.39.2'},
    },
  });
  await custom.patchNamespacedCustomObject({...gv, namespace, name: 'agent', body: {spec: {logLevel: 'debug'}}},
                                           k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  const got = await custom.getNamespacedCustomObject({...gv, namespace, name: 'agent'});
  check(got.spec.logLevel === 'debug' && got.spec.image === 'grafana/agent:v0.39.2',
        'custom object create, merge patch and get');
  const agents = await custom.listClusterCustomObject({...gv, labelSelector: 'team=a'});
  check(same(agents.items.map((a) => a.metadata.name), ['agent']), 'custom objects listed across namespaces');
  console.log('passed');
}

main().catch((e) => {
  console.log('FAILED: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});
