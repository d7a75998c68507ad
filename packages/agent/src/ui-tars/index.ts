/**
 * @computer-gateway/agent/ui-tars — our desktop as @ui-tars/sdk's Operator:
 * `new GUIAgent({ model, operator: new GatewayOperator({ baseUrl, token }) })`.
 */
export { GatewayOperator, type GatewayOperatorOptions } from './operator.ts'
export { actionText } from './action-text.ts'
export { GatewayError } from '../client/index.ts'
