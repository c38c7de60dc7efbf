import FeatureKit
import LevelsFeature
import Testing

/// Levels' bars follow the width the host gives at each render (a resized terminal), and the
/// config's `columns` where the host gives none.
@Suite struct LevelsRenderOptionsTests {
  private func leftBar(_ view: [String]) -> Int { view[1].filter { $0 == "█" }.count }

  @Test func theWidthOfEachRenderWinsOverTheConfigs() {
    let feature = LevelsFeature(columns: 60)
    let state = LevelsFeature.State(left: 15, right: 20)
    // 60 columns: the full 40-cell bar, 15 of 20 is 30 cells; 30 columns: 19 cells, 15 is 14.
    #expect(leftBar(feature.render(state)) == 30)
    #expect(leftBar(feature.render(state, options: RenderOptions(columns: 30))) == 14)
    #expect(leftBar(feature.render(state, options: RenderOptions(complete: true))) == 30)
  }
}
