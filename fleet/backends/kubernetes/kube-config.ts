/**
 * The Kubernetes API's credentials, found as kubectl finds them: inside a cluster (a pod whose
 * service account is mounted; KUBERNETES_SERVICE_HOST is set) the service account's token, CA and
 * namespace; elsewhere the kubeconfig (KUBECONFIG, else ~/.kube/config) and its current context.
 * The namespace is the flag's when given, else the context's (in a cluster: the pod's own), else
 * `default`.
 */
import { KubeConfig } from '@kubernetes/client-node'

/** `root` prefixes the service account's files (/var/run/secrets/kubernetes.io/serviceaccount/): '' in a pod. */
export function loadKubeConfig (env: NodeJS.ProcessEnv = process.env, root = ''): KubeConfig {
  const config = new KubeConfig()
  if (env.KUBERNETES_SERVICE_HOST) config.loadFromCluster(root)
  else config.loadFromDefault()
  return config
}

export function namespaceOf (config: KubeConfig, flag?: string): string {
  if (flag) return flag
  return config.getContextObject(config.getCurrentContext())?.namespace || 'default'
}
