import Foundation
import Testing
import WaymarkAnalytics

/// The figures the console prints next to a conversion, against values computed independently
/// (R's `prop.test(c(45, 30), c(100, 100), correct = FALSE)` gives p = 0.02846).
@Suite struct StatisticsTests {
    @Test func wilsonIntervals() throws {
        let interval = try #require(Proportion(10, of: 100).interval)
        #expect(abs(interval.lowerBound - 0.05523) < 1e-5)
        #expect(abs(interval.upperBound - 0.17437) < 1e-5)
        // Stays inside 0...1 where the normal interval would not.
        #expect(try #require(Proportion(0, of: 10).interval).lowerBound == 0)
        #expect(abs(try #require(Proportion(0, of: 10).interval).upperBound - 0.27753) < 1e-5)
        #expect(try #require(Proportion(10, of: 10).interval).upperBound <= 1)
        #expect(Proportion(0, of: 0).interval == nil)
        #expect(Proportion(0, of: 0).rate == nil)
    }

    @Test func twoProportionTest() throws {
        let p = try #require(Statistics.twoProportionPValue(Proportion(45, of: 100), Proportion(30, of: 100)))
        #expect(abs(p - 0.02846) < 1e-5)
        // Symmetric, and 1 for equal rates.
        #expect(abs(try #require(Statistics.twoProportionPValue(Proportion(30, of: 100), Proportion(45, of: 100))) - p) < 1e-12)
        #expect(abs(try #require(Statistics.twoProportionPValue(Proportion(20, of: 100), Proportion(40, of: 200))) - 1) < 1e-12)
        // Nothing to say without trials or without any variation.
        #expect(Statistics.twoProportionPValue(Proportion(0, of: 0), Proportion(3, of: 10)) == nil)
        #expect(Statistics.twoProportionPValue(Proportion(0, of: 10), Proportion(0, of: 10)) == nil)
        #expect(!Statistics.enoughForTest([Proportion(4, of: 100), Proportion(50, of: 100)]))
        #expect(Statistics.enoughForTest([Proportion(5, of: 100), Proportion(50, of: 100)]))
    }
}
