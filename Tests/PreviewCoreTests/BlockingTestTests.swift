import PreviewTestSupport
import Testing

/// The `.blocking` trait moves a test off Swift's cooperative threads, and only a test that has it.
@Suite struct BlockingTestTests {
    @Test(.blocking) func aBlockingTestRunsOnItsOwnThreads() {
        #expect(BlockingTestThreads.isCurrent)
    }

    @Test(.blocking, arguments: 0..<3) func eachCaseOfABlockingTestDoes(index: Int) {
        #expect(BlockingTestThreads.isCurrent, "case \(index)")
    }

    @Test func otherTestsRunWhereSwiftTestingPutsThem() {
        #expect(!BlockingTestThreads.isCurrent)
    }
}
