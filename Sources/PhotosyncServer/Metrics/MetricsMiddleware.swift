import Hummingbird

/// Records each request's route, status and latency in ``ServerMetrics``. The latency is the time to the
/// response's head (a long-poll's includes its wait up to the answer or its first heartbeat; a stream's and
/// a file's body time is not in it), so that buffered bodies keep Hummingbird's single-write path. Requests that match no route are counted under
/// the route `unmatched`, so that scanners can't grow the label set.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        do {
            let response = try await next(request, context)
            metrics.requestAnswered(
                route: context.endpointPath ?? "unmatched", method: method, status: Int(response.status.code), duration: .now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.requestAnswered(route: context.endpointPath ?? "unmatched", method: method, status: Int(status), duration: .now - start)
            throw error
        }
    }
}
